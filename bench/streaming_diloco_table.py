#!/usr/bin/env python3
"""The tables of bench/streaming-diloco.sh from its runs (one JSON summary a line), medians
over rounds:
  target  per profile and system: time to BSP's target loss (and the speed-up over BSP),
          WAN MB, final loss, health;
  bytes   per profile and system: WAN MB per full model's sync (DP: per clock; Streaming
          DiLoCo: P fragment syncs), the busiest link's peak rate, compute utilization,
          seconds per clock, health;
  sweep   per rate and system: compute utilization (the shape of the paper's Fig. 4);
and the capture's bytes on one direction against the links' counter for it."""
import json
import os
import statistics
import sys


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits=2, unit=""):
    return "-" if x is None else ("%.*f%s" % (digits, x, unit))


def health(runs):
    verdicts = set()
    for r in runs:
        h = r.get("health", {})
        verdicts.add("healthy" if h.get("healthy", False) else
                      "UNHEALTHY: " + "; ".join(h.get("problems", [])) if h else "-")
    return ", ".join(sorted(verdicts))


def full_syncs(run):
    """Full models' worth of synchronization in the run."""
    policy = run.get("policy") or {}
    if "diloco" in run:
        steps = run["diloco"]["outer_steps"]
        return steps / policy.get("fragments", 1)
    return len(run.get("iteration_s", [])) or None  # a sync every clock


def groups(runs, part):
    out = {}
    for r in runs:
        if r.get("bench_part") == part and not r.get("failed"):
            out.setdefault((r["bench_place"], r["bench_label"]), []).append(r)
    return out


def main(out_dir):
    runs = [json.loads(line) for line in open(os.path.join(out_dir, "runs.jsonl")) if line.strip()]
    failed = [r for r in runs if r.get("failed")]
    for r in failed:
        print("failed: %s %s %s round %s" % (r["bench_part"], r["bench_place"], r["bench_label"],
                                              r["bench_round"]))
    g = groups(runs, "target")
    if g:
        print("\n## Time to BSP's target loss (logreg)\n")
        print("| profile | system | time to target | vs BSP | WAN MB | final loss | health |")
        print("|---|---|---|---|---|---|---|")
        for (place, label), rs in g.items():
            t = median(r.get("time_to_target_s") for r in rs)
            bsp = median(r.get("time_to_target_s") for r in g.get((place, "bsp"), []))
            speed = bsp / t if t and bsp else None
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                place, label, fmt(t, 2, " s"), fmt(speed, 2, "x"),
                fmt(median(r["wan_bytes"] / 1e6 for r in rs), 3),
                fmt(median(r["final_loss"] for r in rs), 4), health(rs)))
    for part, title in (("bytes", "Bytes and the peak rate a link needed (dense model)"),
                        ("sweep", "Compute utilization against the WAN's rate (the shape of Fig. 4)")):
        g = groups(runs, part)
        if not g:
            continue
        print("\n## %s\n" % title)
        print("| place | system | WAN MB per full sync | busiest link's peak Mbit/s | compute "
              "utilization | s per clock | final loss | health |")
        print("|---|---|---|---|---|---|---|---|")
        for (place, label), rs in g.items():
            per_sync = median(r["wan_bytes"] / 1e6 / full_syncs(r) for r in rs if full_syncs(r))
            print("| %s | %s | %s | %s (%s) | %s | %s | %s | %s |" % (
                place, label, fmt(per_sync, 3),
                fmt(median(r["health"].get("peak_mbit") for r in rs), 1),
                rs[0]["health"].get("peak_direction", "-"),
                fmt(median(r["compute_utilization"]["mean"] for r in rs), 3),
                fmt(median(r["mean_iteration_s"] for r in rs), 3),
                fmt(median(r["final_loss"] for r in rs), 4), health(rs)))
    cap = [r for r in runs if r.get("bench_part") == "capture" and not r.get("failed")]
    path = os.path.join(out_dir, "capture-bytes.txt")
    if cap and os.path.exists(path):
        captured = {}
        for line in open(path):
            direction, n = line.rstrip("\n").split("\t")
            captured[direction.replace("->", ">")] = int(n)
        per = {k.replace("->", ">"): v for k, v in cap[0].get("wan_bytes_per_direction", {}).items()}
        print("\n## Every direction: the links' counters against the capture (frame lengths)\n")
        print("| direction | counter bytes | captured bytes | captured/counter |")
        print("|---|---|---|---|")
        for d in sorted(per, key=per.get, reverse=True):
            c = captured.get(d, 0)
            print("| %s | %d | %d | %s |" % (d, per[d], c, fmt(c / per[d] if per[d] else None, 4)))
        total_c, total_p = sum(captured.get(d, 0) for d in per), sum(per.values())
        print("| all | %d | %d | %s |" % (total_p, total_c, fmt(total_c / total_p if total_p else None, 4)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/out/streaming-diloco")
