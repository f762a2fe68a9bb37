#!/usr/bin/env python3
"""The table of bench/diloco.sh from its runs (one JSON summary a line): per system, the
median over rounds of the time to the target loss, the WAN bytes, the final loss and the
wall time, each also as a ratio to BSP's; the health verdicts beside them.

The tree strategies (NetStorm) train the same job with BSP's arithmetic (their exactness
check holds them to the single-process run), so their model after k iterations is the
single-process BSP model after k clocks; but the loss they report is the training loss,
not the held-out one. Their time to target is therefore the time at the end of their
k-th iteration, k the first clock at which the single-process run's held-out loss (the
parameter servers' reference curve, the target's source) reaches the target, and their
final loss that curve's after their iterations. Their WAN bytes are what their nodes
sent to their neighbours (a tree's chunk crosses one link); the parameter servers' are
the links' kernel counters."""
import json
import statistics
import sys


def tree_run(run):
    return "time_to_target_s" not in run


def time_to_target(run, target, reference):
    if not tree_run(run):
        return run["time_to_target_s"]
    k = next((c for c, loss in enumerate(reference) if loss <= target), None)
    times = run.get("iteration_s", [])
    if k is None or k > len(times):
        return None
    return sum(times[:k])


def wan_bytes(run):
    if not tree_run(run):
        return run["wan_bytes"]
    return sum(sum(n["bytes_sent"].values()) for n in run["nodes"].values())


# A tree run's start-of-run link measurement (run_options.cpp's defaults, which the bench
# leaves alone): 6 probes of 1 MiB on each direction it measures.
PROBE_BYTES = 6 * (1 << 20)


def probe_bytes(run):
    if not tree_run(run):
        return 0
    return PROBE_BYTES * sum(len(n["bytes_sent"]) for n in run["nodes"].values())


def final_loss(run, reference):
    if not tree_run(run):
        return run["final_loss"]
    k = len(run.get("iteration_s", []))
    return reference[k] if k < len(reference) else None


def health(run):
    h = run.get("health", {})
    problems = h.get("problems", [])
    return "healthy" if not problems else "; ".join(problems)


def main(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    ps = next(r for r in runs if "target_loss" in r)
    target, reference = ps["target_loss"], ps["reference_loss_curve"]
    by = {}
    for r in runs:
        by.setdefault(r["bench_label"], []).append(r)
    def med(values):
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None
    rows = []
    for label, rs in by.items():
        rows.append((label, med([time_to_target(r, target, reference) for r in rs]),
                     med([wan_bytes(r) for r in rs]),
                     med([probe_bytes(r) for r in rs]),
                     med([final_loss(r, reference) for r in rs]),
                     med([r.get("wall_s", sum(r.get("iteration_s", []))) for r in rs]),
                     sorted({health(r) for r in rs}), len(rs)))
    base = dict((r[0], r) for r in rows).get("bsp")
    base = (base[0], base[1], base[2]) if base else None
    print("target loss %.6f (%s)" % (target, ps.get("target_source", "")))
    print("| system | time to target | speed-up vs BSP | WAN MB | BSP's bytes / these | final loss | wall | runs | health |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, ttt, wan, probes, loss, wall, hl, n in rows:
        def ratio(v, b):
            return "%.2fx" % (b / v) if v and b else ""
        print("| %s | %s | %s | %s | %s | %s | %.1f s | %d | %s |" % (
            label, "%.2f s" % ttt if ttt is not None else "not reached",
            ratio(ttt, base[1] if base else None),
            ("%.2f" % (wan / 1e6)) + (" (%.2f of it probes)" % (probes / 1e6) if probes else ""),
            ratio(wan, base[2] if base else None),
            "%.5f" % loss if loss is not None else "", wall, n, ", ".join(hl)))


if __name__ == "__main__":
    main(sys.argv[1])
