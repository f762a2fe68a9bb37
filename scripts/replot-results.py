#!/usr/bin/env python3
"""Draws a results directory's plots with the current `testbed report`, from the run
summaries its results.json keeps: iteration_time.png, strategies.png and loss.png, into
bench/out/replot/NAME/ (git keeps no PNG: scripts/slim-results.py). links.png needs the
links' samples, which results directories do not keep: the next run of the scenario draws
it. A committed (slimmed) results.json has left long series out ({"left_out_samples": N});
a plot that needs one is drawn from what is there, or not at all.

    scripts/replot-results.py bench/results/*/
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTBED = os.path.join(HERE, "..", "build", "bin", "testbed")
OUT = os.path.join(HERE, "..", "bench", "out", "replot")


def present(summary):
    """The summary without the series a slimmed file left out."""
    return {k: v for k, v in summary.items()
            if not (isinstance(v, dict) and set(v) == {"left_out_samples"})}


def replot(result_dir, path):
    runs = [present(r["summary"]) for r in json.load(open(path)).get("runs", []) if "summary" in r]
    if not runs:
        return "no run summaries"
    # results.json draws into NAME/, results-X.json into NAME-X/.
    suffix = os.path.basename(path)[len("results"):-len(".json")]
    out = os.path.join(OUT, os.path.basename(os.path.normpath(result_dir)) + suffix)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "lab", "runs"))
        # `testbed report` reads runs/*.json in name order: the runs' order kept.
        for i, summary in enumerate(runs):
            with open(os.path.join(tmp, "lab", "runs", "%04d.json" % i), "w") as f:
                json.dump(summary, f)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        r = subprocess.run([TESTBED, "report", os.path.join(tmp, "lab"), "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "testbed report failed: " + r.stderr.strip()
        return "drew " + ", ".join(sorted(f for f in os.listdir(out) if f.endswith(".png"))) + \
            " in " + os.path.normpath(out)


def main():
    for d in sys.argv[1:]:
        files = sorted(glob.glob(os.path.join(d, "results*.json")))
        if not files:
            print("%s: no results*.json" % d)
        for path in files:
            print("%s: %s" % (path, replot(d, path)))


if __name__ == "__main__":
    main()
