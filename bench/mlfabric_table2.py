#!/usr/bin/env python3
"""MLfabric's Table 2 (Sec. 7.1) from the suites' results, beside the paper's.

Reads bench/results/<prefix>-cX-nY/results.json (one scenario per cell, rows rr-sync,
mlfabric-a and async, one run per seed) and prints, per cell: communication over compute
for every row, then each row's time to the target loss (mean over seeds, and the range),
MLfabric-A's speed-up over RR-Sync (ratio of the means, and per seed), the paper's, the
share of updates MLfabric-A dropped, the share of its messages that reached the server
late against the scheduler's plan, and the runs the health check flagged.

Communication per iteration: RR-Sync's is measured (`communication`: the last worker's
update computed to the last worker holding the next model); a parameter-server row's is
its mean iteration minus the mean compute (what a worker spends not computing: its pull's
wait). The mean compute is the configured time times the stragglers' expected factor.

    bench/mlfabric_table2.py [--prefix mlfabric-paper-regime] [--suffix ""] [--cells c1-n1,...]
"""
import argparse
import json
import os
import statistics

PAPER = {  # Table 2: MLfabric-A's speed-up over RR-Sync
    "c1-n1": 1.74, "c1-n2": 1.23, "c1-n3": 1.42,
    "c2-n1": 2.96, "c2-n2": 2.0, "c2-n3": 2.32,
    "c3-n1": 1.90, "c3-n2": 1.33, "c3-n3": 1.42,
}
ROWS = ["rr-sync", "mlfabric-a", "async"]


def mean_compute_s(summary):
    """The configured compute time times the stragglers' expected slowdown."""
    ms = summary.get("compute_ms")
    if isinstance(ms, dict):
        ms = (ms.get("min", 0) + ms.get("max", 0)) / 2
    st = summary.get("stragglers") or {}
    share, factor = st.get("share", 0.0), st.get("factor", 1.0)
    return float(ms) / 1000 * (1 + share * (factor - 1))


def comm_s(summary):
    if summary.get("communication", {}).get("mean_s") is not None:
        return summary["communication"]["mean_s"]
    return summary["mean_iteration_s"] - mean_compute_s(summary)


def fmt_range(xs):
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.1f} s"
    return f"{statistics.mean(xs):.1f} s ({min(xs):.1f}-{max(xs):.1f})"


def cell_rows(path):
    runs = json.load(open(path))["runs"]
    by = {}
    for r in runs:
        if "summary" not in r:
            by.setdefault(r["strategy"], []).append({"failed": r.get("failure", "failed")})
            continue
        by.setdefault(r["strategy"], []).append(dict(r["summary"], seed=r.get("seed")))
    return by


def describe(cell, by):
    out = {"cell": cell.upper()}
    comm = []
    for row in ROWS:
        runs = [s for s in by.get(row, []) if "failed" not in s]
        ratios = [comm_s(s) / mean_compute_s(s) for s in runs]
        comm.append(f"{statistics.mean(ratios):.2f}" if ratios else "-")
    out["comm"] = " / ".join(comm)
    ttt = {}
    for row in ROWS:
        runs = [s for s in by.get(row, []) if "failed" not in s]
        reached = [s["time_to_target_s"] for s in runs if s.get("time_to_target_s") is not None]
        missed = len(by.get(row, [])) - len(reached)
        ttt[row] = reached
        out[row] = fmt_range(reached) + (f", {missed} not reached" if missed else "")
    seeds = {}
    for row in ("rr-sync", "mlfabric-a"):
        for s in by.get(row, []):
            if "failed" not in s and s.get("time_to_target_s") is not None:
                seeds.setdefault(s["seed"], {})[row] = s["time_to_target_s"]
    per_seed = [v["rr-sync"] / v["mlfabric-a"] for _, v in sorted(seeds.items())
                if len(v) == 2]
    if ttt["rr-sync"] and ttt["mlfabric-a"]:
        out["speedup"] = (f"{statistics.mean(ttt['rr-sync']) / statistics.mean(ttt['mlfabric-a']):.2f}x"
                          f" ({', '.join(f'{x:.2f}' for x in per_seed)})")
    else:
        out["speedup"] = "-"
    a = [s for s in by.get("mlfabric-a", []) if "failed" not in s]
    out["dropped"] = (f"{100 * statistics.mean(s['mlfabric']['drop_fraction'] for s in a):.0f}%"
                      if a else "-")
    late = [s["mlfabric"].get("arrivals", {}).get("late_share") for s in a]
    late = [x for x in late if x is not None]
    out["late"] = f"{100 * statistics.mean(late):.0f}%" if late else "-"
    flagged = []
    for row in ROWS:
        bad = [s for s in by.get(row, []) if "failed" in s or s.get("health", {}).get("problems")]
        if bad:
            flagged.append(f"{row} {len(bad)}/{len(by[row])}")
    cpu = [s["health"]["cpu_busy_p90"] for rs in by.values() for s in rs
           if "failed" not in s and s.get("health", {}).get("cpu_busy_p90") is not None]
    out["health"] = ("; ".join(flagged) if flagged else "healthy") + (
        f" (CPU p90 up to {100 * max(cpu):.0f}%)" if cpu else "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", default="mlfabric-paper-regime")
    ap.add_argument("--suffix", default="")
    ap.add_argument("--cells", default=",".join(PAPER))
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    a = ap.parse_args()
    print("| cell | comm/compute (RR-Sync / MLfabric-A / Async) | RR-Sync | MLfabric-A | Async "
          "| MLfabric-A speed-up (per seed) | paper | dropped | late at server | health |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cell in a.cells.split(","):
        path = os.path.join(a.results, f"{a.prefix}-{cell}{a.suffix}", "results.json")
        if not os.path.exists(path):
            print(f"| {cell.upper()} | not run | | | | | {PAPER[cell]}x | | | |")
            continue
        d = describe(cell, cell_rows(path))
        print(f"| {d['cell']} | {d['comm']} | {d['rr-sync']} | {d['mlfabric-a']} | {d['async']} "
              f"| {d['speedup']} | {PAPER[cell]}x | {d['dropped']} | {d['late']} | {d['health']} |")


if __name__ == "__main__":
    main()
