#!/usr/bin/env python3
"""MLfabric's compute settings C1-C3 read two ways, side by side (docs/mlfabric.md).

Reads bench/results/mlfabric-stragglers-cX/results.json (one scenario per setting, rows
rr-sync-wait, mlfabric-a-wait, rr-sync-cpu, mlfabric-a-cpu, one run per seed) and prints
per setting and reading: each row's time to the target loss (mean over seeds, and the
range), MLfabric-A's speed-up over RR-Sync (ratio of the means, and per seed), the paper's,
the measured compute a clock (mean and p90 over every worker clock: the wait or the burnt
CPU, stragglers included), the workers' CPU held back by their share, and the runs the
health check flagged.

    bench/mlfabric_stragglers.py [--results DIR]
"""
import argparse
import json
import os
import statistics

PAPER_N1 = {"c1": 1.74, "c2": 2.96, "c3": 1.90}  # Table 2, N1: MLfabric-A over RR-Sync
READINGS = {"wait": "agents' waits", "cpu": "CPU throttling"}


def runs_by_row(path):
    by = {}
    for r in json.load(open(path))["runs"]:
        s = r.get("summary")
        by.setdefault(r["strategy"], []).append(
            dict(s, seed=r.get("seed")) if s else {"failed": r.get("failure", "failed")})
    return by


def fmt(xs):
    if not xs:
        return "-"
    return f"{statistics.mean(xs):.1f} s ({min(xs):.1f}-{max(xs):.1f})"


def row(cell, reading, by):
    rr, ma = by.get(f"rr-sync-{reading}", []), by.get(f"mlfabric-a-{reading}", [])
    ok = lambda rs: [s for s in rs if "failed" not in s]
    ttt = lambda rs: [s["time_to_target_s"] for s in ok(rs) if s.get("time_to_target_s")]
    missed = lambda rs: len(rs) - len(ttt(rs))
    per_seed = {}
    for name, rs in (("rr", rr), ("ma", ma)):
        for s in ok(rs):
            if s.get("time_to_target_s"):
                per_seed.setdefault(s["seed"], {})[name] = s["time_to_target_s"]
    seeds = [v["rr"] / v["ma"] for _, v in sorted(per_seed.items()) if len(v) == 2]
    speedup = (f"{statistics.mean(ttt(rr)) / statistics.mean(ttt(ma)):.2f}x "
               f"({', '.join(f'{x:.2f}' for x in seeds)})" if ttt(rr) and ttt(ma) else "-")
    comp = [s["clock_compute"] for s in ok(rr + ma) if s.get("clock_compute", {}).get("clocks")]
    compute = (f"{1000 * statistics.mean(c['mean_s'] for c in comp):.0f} / "
               f"{1000 * statistics.mean(c['p90_s'] for c in comp):.0f} ms" if comp else "-")
    held = []
    for s in ok(rr + ma):
        nodes = (s.get("compute") or {}).get("nodes", {})
        w = [n["throttled_share"] for k, n in nodes.items() if k.startswith("w")]
        if w:
            held.append(statistics.mean(w))
    flagged = [s for s in rr + ma if "failed" in s or s.get("health", {}).get("problems")]
    cpu = [s["health"]["cpu_busy_p90"] for s in ok(rr + ma)
           if s.get("health", {}).get("cpu_busy_p90") is not None]
    health = (f"{len(flagged)}/{len(rr + ma)} flagged" if flagged else "healthy") + (
        f" (CPU p90 up to {100 * max(cpu):.0f}%)" if cpu else "")
    return (f"| {cell.upper()} | {READINGS[reading]} | {fmt(ttt(rr))}"
            f"{f', {missed(rr)} not reached' if missed(rr) else ''} | {fmt(ttt(ma))}"
            f"{f', {missed(ma)} not reached' if missed(ma) else ''} | {speedup} | "
            f"{PAPER_N1[cell]}x | {compute} | "
            f"{f'{100 * statistics.mean(held):.0f}%' if held else '-'} | {health} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    a = ap.parse_args()
    print("| setting | stragglers as | RR-Sync | MLfabric-A | MLfabric-A speed-up (per seed) "
          "| paper (N1) | compute a clock, mean / p90 | workers' periods held back | health |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cell in ("c1", "c2", "c3"):
        path = os.path.join(a.results, f"mlfabric-stragglers-{cell}", "results.json")
        if not os.path.exists(path):
            print(f"| {cell.upper()} | (no results: {path}) |")
            continue
        by = runs_by_row(path)
        for reading in READINGS:
            print(row(cell, reading, by))


if __name__ == "__main__":
    main()
