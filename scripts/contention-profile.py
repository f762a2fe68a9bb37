#!/usr/bin/env python3
"""Turns a profile whose links' rates are redrawn to stand for contention (MLfabric's
N1-N3, Sec. 7.1: a NIC at 5 of its 10 Gbit/s stands for one contending flow) into the same
network with real contending TCP flows instead: every link keeps its full rate, and for
each drawing interval and direction a link's drawn rate r becomes round(full / r) - 1 bulk
flows on it (5 of 10 Gbit/s: one flow, whose fair share leaves the job half; 10: none).
The rates are the very ones a run of the profile draws (`testbed plan --json
--changes-until`: a random schedule's draws are a function of the lab's seed and the
direction), so the two labs see the same contention at the same times. In a star (a node
`core`, as MLfabric's cluster) the flows run between the link's host and a node `ext`
behind the switch, on a link wide enough never to be the bottleneck; in any other
topology (NetStorm's Internet2) between the link's own two ends. Either way they contend
only where the drawn rate would have limited.

    scripts/contention-profile.py profiles/mlfabric-cluster.yaml --horizon 120 \\
        --out profiles/mlfabric-cluster-flows.yaml
"""
import json
import os
import subprocess
import argparse
import re
import sys

import yaml


def rate_bits(text):
    m = re.fullmatch(r"([0-9.]+)(bit|kbit|mbit|gbit)", str(text).strip().lower())
    if not m:
        sys.exit(f"contention-profile: cannot read the rate {text!r}")
    return float(m.group(1)) * {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m.group(2)]


def seconds(text):
    m = re.fullmatch(r"([0-9.]+)(ms|s)", str(text).strip())
    if not m:
        sys.exit(f"contention-profile: cannot read the time {text!r}")
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--horizon", type=float, default=120, help="seconds of draws")
    ap.add_argument("--testbed", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                       "bin", "testbed"))
    ap.add_argument("--lab", help="the new profile's lab (default: the old one's + 'x')")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.profile) as f:
        text = f.read()
    p = yaml.safe_load(text)
    random_schedule = p["defaults"]["schedule"]["random"]
    every = seconds(random_schedule["every"])
    drawn_from = random_schedule["bandwidth"]
    if isinstance(drawn_from, str):  # a range, lo..hi
        drawn_from = drawn_from.split("..")
    choices = [rate_bits(r) for r in drawn_from]
    full = max(choices)
    flows_of = [round(full / r) - 1 for r in choices]
    star = "core" in p["nodes"]
    drawn = [l for l in p["links"] if "schedule" not in l]  # the links that take the defaults'
    plan = json.loads(subprocess.run(
        [a.testbed, "plan", a.profile, "--json", "--changes-until", f"{a.horizon:g}s"],
        check=True, capture_output=True, text=True).stdout)
    planned = {(l["a"], l["b"]): l for l in plan["links"]}
    traffic = []
    for link in drawn:
        ends = tuple(link["endpoints"])
        pl = planned[ends]
        for key, src, dst in (("a2b", ends[0], ends[1]), ("b2a", ends[1], ends[0])):
            if star:
                # host -> core is the host's outgoing contention: flows host -> ext; core ->
                # host its incoming: ext -> host.
                host = [e for e in ends if e != "core"][0]
                src, dst = (host, "ext") if src == host else ("ext", host)
            rates = {round(c["at_s"] / every): c["rate_bits_per_s"] for c in pl[key]["changes"]
                     if "rate_bits_per_s" in c}
            run = None  # (flows, start)
            for k in range(int(a.horizon / every)):
                t = k * every
                n = round(full / rates[k]) - 1
                if run and run[0] != n:
                    if run[0] > 0:
                        traffic.append((src, dst, run[0], run[1], t))
                    run = None
                if not run:
                    run = (n, t)
            if run and run[0] > 0:
                traffic.append((src, dst, run[0], run[1], None))
    if len(traffic) > 99:
        sys.exit(f"contention-profile: {len(traffic)} entries; at most 99 (a shorter horizon)")
    del p["defaults"]["schedule"]
    p["defaults"]["bandwidth"] = drawn_from[choices.index(full)]
    p["lab"] = a.lab or (p["lab"][:23] + "x")
    if star:
        p["nodes"]["ext"] = {}
        wide = f"{int(full * (len(drawn) + 2) / 1e6)}mbit"
        p["links"].append({"endpoints": ["ext", "core"], "bandwidth": wide})
    p["cross_traffic"] = [
        dict({"from": s, "to": d, "kind": "bulk", "flows": n, "start": f"{b:g}s"},
             **({"stop": f"{e:g}s"} if e is not None else {}))
        for s, d, n, b, e in traffic
    ]
    header = "".join(
        "# " + line + "\n"
        for line in [
            f"{a.profile}'s contention as real TCP flows, made by",
            f"scripts/contention-profile.py {a.profile} --horizon {a.horizon:g}",
            f"(do not edit: run it again). Every {every:g} s each direction of each link the",
            "defaults' random schedule draws (the same draws, from the same seed) is given",
            "round(full / drawn) - 1 bulk flows instead (" +
            ("to or from `ext`" if star else "between the link's ends") + "); every link",
            "keeps its full rate.",
            f"{len(traffic)} entries over {a.horizon:g} s.",
        ])
    with open(a.out, "w") as f:
        f.write(header)
        yaml.safe_dump(p, f, sort_keys=False, default_flow_style=None, width=100)
    print(f"{a.out}: {len(traffic)} cross-traffic entries, flows per rate "
          f"{dict(zip(drawn_from, flows_of))}")


if __name__ == "__main__":
    main()
