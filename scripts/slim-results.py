#!/usr/bin/env python3
"""Makes a results directory small enough to keep in git: what a doc cites, not every sample.

A `testbed regress`/`run` results.json holds every run's summary with its series (loss
curves, per-iteration times, per-direction health): 0.3-2.6 MB a file. The docs cite the
summaries' figures, which stay; the long series are left out of the committed copy, each
replaced by {"left_out_samples": N}, and the bench command that made the directory makes
them again whole. PNGs are never committed (`testbed report DIR` or
scripts/replot-results.py draws them from a whole results.json).

    scripts/slim-results.py bench/results/NAME/ [...]          # rewrite in place
    scripts/slim-results.py --keep loss_curve bench/results/drps-converge/

Left out: lists of more than --most (16) numbers or lists (series and [t, value] points),
and each health report's per-direction list (its verdict, problems and summary figures
stay). Written compact, one line a file.
"""
import argparse
import json
import os
import sys


def slim(value, keep, most, key=""):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "directions" and key == "health" and k not in keep and isinstance(v, list):
                out[k] = {"left_out_samples": len(v)}
            else:
                out[k] = slim(v, keep, most, k)
        return out
    if isinstance(value, list):
        series = all(isinstance(x, (int, float, list)) and not isinstance(x, bool) for x in value)
        if key not in keep and len(value) > most and series:
            return {"left_out_samples": len(value)}
        return [slim(x, keep, most, key) for x in value]
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--keep", action="append", default=[], help="a key whose series stay whole")
    ap.add_argument("--most", type=int, default=16, help="the longest series kept whole")
    args = ap.parse_args()
    before = after = 0
    for d in args.dirs:
        for root, _, files in os.walk(d):
            for name in sorted(files):
                path = os.path.join(root, name)
                if name.endswith(".png"):
                    before += os.path.getsize(path)
                    os.remove(path)
                    continue
                if not name.endswith(".json"):
                    continue
                with open(path) as f:
                    text = f.read()
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as e:
                    print(f"{path}: not JSON ({e}); left as it is", file=sys.stderr)
                    continue
                out = json.dumps(slim(data, set(args.keep), args.most), separators=(",", ":"))
                with open(path, "w") as f:
                    f.write(out + "\n")
                before += len(text)
                after += len(out) + 1
    print(f"{before} bytes -> {after} bytes")


if __name__ == "__main__":
    main()
