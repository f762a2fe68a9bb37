#!/usr/bin/env python3
"""Draws a committed scenario result's plots again with the current `testbed report`, from
the run summaries its results.json keeps: iteration_time.png, strategies.png and loss.png.
links.png needs the links' samples, which results directories do not keep: it is left as
it was (the next run of the scenario draws it anew).

    scripts/replot-results.py bench/results/*/
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

TESTBED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "testbed")


def replot(result_dir):
    path = os.path.join(result_dir, "results.json")
    if not os.path.exists(path):
        return "no results.json"
    runs = [r["summary"] for r in json.load(open(path)).get("runs", []) if "summary" in r]
    if not runs:
        return "no run summaries"
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "lab", "runs"))
        # `testbed report` reads runs/*.json in name order: the runs' order kept.
        for i, summary in enumerate(runs):
            with open(os.path.join(tmp, "lab", "runs", "%04d.json" % i), "w") as f:
                json.dump(summary, f)
        out = os.path.join(tmp, "out")
        r = subprocess.run([TESTBED, "report", os.path.join(tmp, "lab"), "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "testbed report failed: " + r.stderr.strip()
        drawn = []
        for png in sorted(glob.glob(os.path.join(out, "*.png"))):
            name = os.path.basename(png)
            # Only pictures the directory already holds: a result that had no loss plot
            # gets none it did not ask for.
            if os.path.exists(os.path.join(result_dir, name)):
                shutil.copyfile(png, os.path.join(result_dir, name))
                drawn.append(name)
        return "drew " + ", ".join(drawn)


def main():
    for d in sys.argv[1:]:
        print("%s: %s" % (d, replot(d)))


if __name__ == "__main__":
    main()
