#!/usr/bin/python3
"""Imports every topology of the Internet Topology Zoo and reports the counts.

usage: scripts/zoo-import.py ZOO_DIR [--testbed build/bin/testbed] [--json]

ZOO_DIR is a copy of github mroughan/InternetTopologyZoo (CC BY 4.0): its graphml/ and
gml/ folders. Each file is imported twice with `testbed import graphml|gml`: first as it
is (the defaults: refuse a graph that is not connected, refuse links without coordinates),
then, for a file refused for either, with --largest-component and --default-delay 1ms.
Every import validates and plans the profile it makes before it succeeds, so a file is
either imported and valid or refused with the reason printed; the counts say how many
of each, by reason. Nothing is written (--out /dev/null).
"""
import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys


def reason_of(stderr):
    """The kind of refusal, from the first line of what the import printed."""
    line = stderr.strip().splitlines()[0] if stderr.strip() else "no output"
    for kind, pattern in [
        ("not connected", r"the graph is not connected"),
        ("nodes without coordinates", r"have no coordinates"),
        ("not a well-formed graph file", r"not a (GraphML|GML) graph"),
        ("fewer than two nodes", r"fewer than two nodes"),
        ("no links", r"no links"),
    ]:
        if re.search(pattern, line):
            return kind, line
    return "other: " + line[:80], line


def run(testbed, kind, path, extra):
    r = subprocess.run([testbed, "import", kind, str(path), "--out", "/dev/null"] + extra,
                       capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("zoo")
    ap.add_argument("--testbed", default="build/bin/testbed")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = {}
    for kind, folder, suffix in [("graphml", "graphml", ".graphml"), ("gml", "gml", ".gml")]:
        files = sorted(pathlib.Path(args.zoo, folder).glob("*" + suffix))
        if not files:
            sys.exit(f"zoo-import: no {suffix} files in {args.zoo}/{folder}")
        as_is = collections.Counter()
        relaxed = collections.Counter()
        refused = {}
        for f in files:
            status, err = run(args.testbed, kind, f, [])
            if status == 0:
                as_is["imported"] += 1
                continue
            why, line = reason_of(err)
            as_is["refused: " + why] += 1
            status2, err2 = run(args.testbed, kind, f,
                                ["--largest-component", "--default-delay", "1ms"])
            if status2 == 0:
                relaxed["imported with --largest-component --default-delay 1ms"] += 1
            else:
                why2, line2 = reason_of(err2)
                relaxed["still refused: " + why2] += 1
                refused[f.name] = line2
        report[kind] = {"files": len(files), "as_is": dict(as_is), "relaxed": dict(relaxed),
                        "refused": refused}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    for kind, r in report.items():
        print(f"{kind}: {r['files']} files")
        for k, v in sorted(r["as_is"].items()):
            print(f"  as is: {k}: {v}")
        for k, v in sorted(r["relaxed"].items()):
            print(f"  then: {k}: {v}")
        for name, line in r["refused"].items():
            print(f"  refused: {name}: {line}")


if __name__ == "__main__":
    main()
