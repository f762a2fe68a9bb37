#!/usr/bin/env python3
"""Times every row of a scenario's results to several targets at once.

A run's own figure is the time to one loss: what single-process BSP reaches after 75% of
the clocks. Whether one parallel model's lead holds later in training (DRPS's claim that
ASP is unstable near the optimum) needs the same rows timed to the losses BSP reaches
after other numbers of clocks. Each run records the single-process curve it was aimed by
(reference_loss_curve, before clock 0..n), so the targets come from the run itself.

usage: drps_horizon.py RESULTS.json [CLOCKS,...]   (default: a quarter, half, 3/4, all)
Prints a markdown table: per row, seconds to each target ("-": not reached in the run),
the last point of its loss curve, its mean clock time and its health verdict.
"""
import json
import math
import sys


def first_time_at(curve, loss):
    """The first time the run's loss curve is at or below `loss`, or None."""
    return next((t for t, value in curve if value <= loss), None)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results = json.load(open(sys.argv[1]))
    runs = results["runs"]
    reference = runs[0]["summary"].get("reference_loss_curve")
    if not reference:
        sys.exit(f"{sys.argv[1]}: the runs carry no reference_loss_curve (an older testbed)")
    n = len(reference) - 1
    if len(sys.argv) > 2:
        clocks = [int(c) for c in sys.argv[2].split(",")]
    else:
        # Rounded up as the run's own target is (3/4 of 90 clocks: 68), so that column
        # repeats each row's time_to_target_s.
        clocks = [math.ceil(n * share) for share in (0.25, 0.5, 0.75, 1.0)]
    if any(c < 0 or c > n for c in clocks):
        sys.exit(f"clocks must be within 0..{n}, the reference curve's length")
    targets = [reference[c] for c in clocks]
    print("| row | " + " | ".join(f"to BSP@{c} ({t:.4f})" for c, t in zip(clocks, targets))
          + " | last loss | s/clock | healthy |")
    print("|---" * (len(clocks) + 4) + "|")
    for run in runs:
        s = run["summary"]
        if s.get("reference_loss_curve") != reference:
            sys.exit(f"{run['strategy']}: aimed by another reference curve; not comparable")
        times = [first_time_at(s["loss_curve"], t) for t in targets]
        cells = [f"{t:.1f}" if t is not None else "-" for t in times]
        health = s.get("health", {})
        print(f"| {run['strategy']} | " + " | ".join(cells)
              + f" | {s['loss_curve'][-1][1]:.4f} | {s['mean_iteration_s']:.2f}"
              + f" | {'yes' if health.get('healthy') else 'no'} |")


if __name__ == "__main__":
    main()
