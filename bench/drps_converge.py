#!/usr/bin/env python3
"""The table of a DRPS parallel-model scenario (converge-sparse-lr.yaml, wsp-bound-*.yaml):
each row's runs with their spread, WSP's waits, and how each row behaves once it got
near the optimum.

usage: drps_converge.py RESULTS.json

Per row: seconds to the run's target (mean, and the range over repetitions), seconds per
clock, clocks to the target (the time over the row's mean clock), the final loss, the
rebound (after the row first reached the target, the highest loss it evaluated later,
above the target: what the paper calls ASP's instability near the optimum), WSP's waits
(chosen, of them forced by delta, mean estimated and realized length) and the health
verdicts. Two rows whose ranges overlap are reported as a tie against the fastest row,
not as an ordering.
"""
import json
import statistics
import sys
from collections import OrderedDict


def rebound(curve, target, reached):
    """Highest loss evaluated after `reached` s, relative to the target (0: never above)."""
    later = [loss for t, loss in curve if t > reached]
    return max(0.0, max(later) / target - 1) if later else 0.0


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = json.load(open(sys.argv[1]))
    rows = OrderedDict()
    for run in results["runs"]:
        rows.setdefault(run["strategy"], []).append(run["summary"])
    first = next(iter(rows.values()))[0]
    print(f"target: {first['target_loss']:.4f} ({first['target_source']})")
    if "target_long_run" in first:
        lr = first["target_long_run"]
        print(f"single-process BSP after {lr['clocks']} clocks: {lr['loss']:.4f}, "
              f"{100 * lr['change_over_last_tenth']:+.2f}% over its last tenth")
    print()
    times = {}
    for name, runs in rows.items():
        t = [r["time_to_target_s"] for r in runs if r.get("time_to_target_s") is not None]
        times[name] = (statistics.mean(t), min(t), max(t), len(t), len(runs)) if t else None
    reached = [v for v in times.values() if v]
    best = min(reached, key=lambda v: v[0]) if reached else None
    print("| row | to target s | vs fastest | s/clock | clocks to target | final loss "
          "| rebound | WSP waits (forced) | wait est./real s | healthy |")
    print("|---" * 10 + "|")
    for name, runs in rows.items():
        tt = times[name]
        per_clock = statistics.mean(r["mean_iteration_s"] for r in runs)
        if tt:
            mean, lo, hi, n, of = tt
            cell = f"{mean:.1f}" if of == 1 else f"{mean:.1f} ({lo:.1f}-{hi:.1f})"
            if n < of:
                cell += f", {of - n} of {of} not reached"
            tie = best and tt is not best and lo <= best[2] and best[1] <= hi
            vs = f"{mean / best[0]:.2f}" + (" (tie)" if tie else "")
            clocks = f"{mean / per_clock:.1f}"
            bounce = statistics.mean(
                rebound(r["loss_curve"], r["target_loss"], r["time_to_target_s"])
                for r in runs if r.get("time_to_target_s") is not None)
            bounce = f"{100 * bounce:.2f}%"
        else:
            cell, vs, clocks, bounce = "not reached", "-", "-", "-"
        final = statistics.mean(r["final_loss"] for r in runs)
        wsp = [r["wsp"] for r in runs if "wsp" in r]
        if wsp:
            waited = statistics.mean(w["waited"] for w in wsp)
            forced = statistics.mean(w["bound_forced"] for w in wsp)
            choices = statistics.mean(w["choices"] for w in wsp)
            waits = f"{waited:.0f} of {choices:.0f} ({forced:.0f})"
            if all("wait_summary" in w for w in wsp):  # runs before one master logged none
                est = statistics.mean(w["wait_summary"]["estimated_mean_s"] for w in wsp)
                real = statistics.mean(w["wait_summary"]["realized_mean_s"] for w in wsp)
                lengths = f"{est:.2f} / {real:.2f}"
            else:
                lengths = "not logged"
        else:
            waits, lengths = "-", "-"
        healthy = sum(1 for r in runs if r.get("health", {}).get("healthy"))
        print(f"| {name} | {cell} | {vs} | {per_clock:.2f} | {clocks} | {final:.4f} | {bounce} "
              f"| {waits} | {lengths} | {healthy} of {len(runs)} |")


if __name__ == "__main__":
    main()
