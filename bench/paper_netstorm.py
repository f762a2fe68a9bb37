#!/usr/bin/env python3
"""The NetStorm paper-regime report: every figure of Sec. IX the suite reproduces, beside
the paper's, with the emulation's health of each run and the measurements that explain a
gap (per network state iteration times, policy staleness after each redraw, auxiliary-path
share, per-edge chunk throughput against the configured rate).

usage: bench/paper_netstorm.py OUT   (OUT holds static/, dynamic/, aux-grid/, grid-*/)
       bench/paper_netstorm.py --replot OUT   (normalized.png again from OUT/report.md)
Writes OUT/report.md and OUT/*.png (gnuplot), and prints the report.
"""
import csv
import glob
import json
import os
import statistics
import subprocess
import sys

from paper_netstorm_causes import causes, direction_loads, iteration_starts, per_state, summaries

# The paper's figures as its text states them (Sec. IX-B/C; bar heights are not given).
PAPER = {
    "fig13_static": 9.2, "fig13_dynamic": 6.5,      # NetStorm over MXNET
    "fig14_fapt_star": 6.7,                         # "up to 6.7 times faster"
    "fig14_fapt_bkt": 3.1,                          # "a 210% speedup over balanced trees"
    "fig14_dyn_fapt_bkt": 1.7,                      # adaptive FAPT over static BKT, dynamic
    "fig16_lite_s": 66.0, "fig16_std_s": 50.0,      # iteration time without/with awareness
    "fig17_gain": (0.30, 0.65), "fig17_best": (2, 5),
    "fig18_lite": 5.5, "fig18_std_over_lite": 1.20, "fig18_pro": 7.5,
}
REDRAW_S = float(os.environ.get("REDRAW_S", "180"))


def load(out, name):
    path = os.path.join(out, name, "results.json")
    return json.load(open(path)) if os.path.exists(path) else None


def figures(res, strategy):
    s = res["strategies"].get(strategy) if res else None
    return None if not s or s.get("failed") else s["figures"]


def sps(res, strategy):
    f = figures(res, strategy)
    return f["samples_per_s"] if f else None


def ratio(res, a, b):
    x, y = sps(res, a), sps(res, b)
    return x / y if x and y else None


def fmt(x, spec="%.2f"):
    return "n/a" if x is None else spec % x


def health_rows(name, res):
    rows = []
    for strategy, s in summaries(res).items():
        h = s.get("health", {})
        late = h.get("release_lateness_ms", {})
        rows.append("| %s | %s | %s | %s / %s | %s | %s | %s |" % (
            name, strategy, "yes" if h.get("healthy") else "**no**", fmt(late.get("p50")),
            fmt(late.get("p99")), fmt(h["cpu_saturated_share"] * 100 if "cpu_saturated_share" in h else None, "%.0f%%"),
            fmt(h.get("min_backlogged_rate_ratio")), "; ".join(h.get("problems", [])) or "-"))
    return rows


def timeline(out, name, strategy):
    """Configured rate per (from, to) after each scheduled change, and the change times."""
    path = os.path.join(out, name, "runs", strategy + "-rep1-timeline.csv")
    changes = []
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if not r["error"]:
                changes.append((float(r["scheduled_s"]), r["from"], r["to"],
                                float(r["rate_bits_per_s"]) / 1e6))
    return changes


def dynamic_diagnostics(out, name, res):
    """Per strategy: mean iteration time in each network state, staleness after each
    redraw, auxiliary share, and edge chunk throughput over the configured rate."""
    rows, diag = [], {}
    for strategy, s in summaries(res).items():
        offset = s.get("train_started_unix_s", 0) - s.get("timeline_started_unix_s", 0)
        starts = iteration_starts(s)
        times = s["iteration_s"]
        state_text = ", ".join("%d: %.1f s (%d)" % (k, statistics.mean(v), len(v))
                               for k, v in sorted(per_state(s).items()))
        # Staleness: from a redraw to the first iteration running a policy rebuilt from
        # measurements taken wholly after it (a version newer than the one in force at the
        # end of the first iteration that started after the redraw).
        versions = [p["version"] for p in s.get("policy_history", [])]
        stale = []
        for k in range(1, 4):
            r = k * REDRAW_S - offset
            after = [i for i, t in enumerate(starts) if t >= r]
            if not after or not versions:
                continue
            first = after[0]
            newer = [i for i in range(first + 1, len(versions)) if versions[i] > versions[first]]
            if newer:
                stale.append(starts[newer[0]] - r)
        # Edge throughput against the configured rate, in states after the first redraw
        # (the planned rates at time 0 are not in the timeline).
        rates, ratios = {}, []
        changes = timeline(out, name, strategy)
        for it, h in enumerate(s.get("edge_history", [])):
            t = offset + starts[it]
            for c in changes:
                if c[0] <= t:
                    rates[(c[1], c[2])] = c[3]
            if t < REDRAW_S:
                continue
            for e in h["edges"]:
                conf = rates.get((e["from"], e["to"]))
                if conf and e["mbit"] > 0 and e["chunks"] >= 2:
                    ratios.append(e["mbit"] / conf)
        aux = [h["aux_share"] for h in s.get("edge_history", [])]
        if strategy == "netstorm-std":
            diag = {"staleness": ", ".join("%.0f s" % x for x in stale) or "n/a",
                    "edge_ratio": fmt(statistics.median(ratios) if ratios else None)}
        rows.append("| %s | %d | %s | %s | %s | %s | %s |" % (
            strategy, len(times), state_text,
            ", ".join("%.0f s" % x for x in stale) or "-",
            fmt(statistics.mean(aux) * 100 if aux else None, "%.0f%%"),
            fmt(statistics.median(ratios) if ratios else None),
            fmt(sorted(ratios)[len(ratios) // 10] if ratios else None)))
    return rows, diag


def busiest(out, name, res, top=2):
    """Per run, the link directions that were busiest: link time their bytes needed at the
    configured rate over the run's time."""
    rows = []
    loads = direction_loads(out, name, res)
    for strategy, s in summaries(res).items():
        per_iteration = len(s["iteration_s"]) / sum(s["iteration_s"])
        rows.append("| %s | %.1f s | %s |" % (strategy, s["mean_iteration_s"], "; ".join(
            "%s %.0f%% (%.0f MB, %.0f Mbit/s)" % (d, need * per_iteration * 100, mb, r)
            for need, d, mb, r in loads.get(strategy, [])[:top])))
    return rows


STRATEGIES = ["ps", "bkt", "mst", "fapt", "netstorm-lite", "netstorm-std", "netstorm-pro"]


def normalized_script(out, data):
    # Names rotated and right-aligned under their bars, the legend below the plot: long
    # names never run together and the legend never covers a bar or gets cut.
    return f"""set terminal pngcairo size 900,480 font 'sans,10'
set termoption noenhanced
set output '{out}/normalized.png'
set title 'Samples/s over PS (MXNET), AlexNet x0.25 on Internet2'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set ylabel 'samples/s over PS (ratio)'
set xtics rotate by 30 right
set key outside below horizontal
set grid ytics
plot '{data}' using 2:xtic(1) title 'static', '' using 3 title 'dynamic (180 s redraws)'
"""


def plot(out, static, dynamic):
    data = os.path.join(out, "normalized.dat")
    with open(data, "w") as f:
        for n in STRATEGIES:
            f.write("%s %s %s\n" % (n, fmt(ratio(static, n, "ps"), "%.3f").replace("n/a", "0"),
                                    fmt(ratio(dynamic, n, "ps"), "%.3f").replace("n/a", "0")))
    script = normalized_script(out, data)
    dyn = summaries(dynamic)
    series = []
    for n in ["netstorm-lite", "netstorm-std", "netstorm-pro"]:
        if n in dyn:
            path = os.path.join(out, "iterations-%s.dat" % n)
            with open(path, "w") as f:
                for t, x in zip(iteration_starts(dyn[n]), dyn[n]["iteration_s"]):
                    f.write("%.2f %.3f\n" % (t, x))
            series.append("'%s' using 1:2 with linespoints title '%s'" % (path, n))
    if series:
        script += f"""set output '{out}/iterations.png'
set title 'Iteration time under the 180 s redraws'
set style data linespoints
set xlabel 'seconds since training began (redraws 180 s apart)'
set ylabel 'seconds per iteration'
set key outside below horizontal
set xtics norotate
set auto x
plot {", ".join(series)}
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("plots skipped: %s" % e, file=sys.stderr)


def replot(out):
    """Draws normalized.png again from OUT/report.md's own tables (Fig. 14 and 18), for a
    report whose runs are no longer at hand: the ratios as the report printed them, to two
    decimals; NetStorm-std's is lite's times the report's std/lite."""
    text = open(os.path.join(out, "report.md")).read()

    def row(label):
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[0] == label:
                return [float(c) for c in cells[-2:]]
        sys.exit("paper_netstorm.py --replot: no row '%s' in report.md" % label)

    lite, std_over_lite = row("Fig. 18 lite / MXNET"), row("Fig. 18 std / lite")
    values = {"ps": row("STAR"), "bkt": row("BKT"), "mst": row("MST"),
              "fapt": row("FAPT (one root)"), "netstorm-lite": lite,
              "netstorm-std": [l * r for l, r in zip(lite, std_over_lite)],
              "netstorm-pro": row("Fig. 18 pro / MXNET")}
    data = os.path.join(out, "normalized.dat")
    with open(data, "w") as f:
        for n in STRATEGIES:
            f.write("%s %.3f %.3f\n" % (n, values[n][0], values[n][1]))
    subprocess.run(["gnuplot"], input=normalized_script(out, data), text=True, check=True)
    os.remove(data)


def main():
    if sys.argv[1] == "--replot":
        return replot(sys.argv[2])
    out = sys.argv[1]
    static, dynamic, aux = load(out, "static"), load(out, "dynamic"), load(out, "aux-grid")
    lines = ["# NetStorm in the paper's regime: paper beside testbed", "",
             "AlexNet x0.25 (16 M parameters), 256 Ki-parameter chunks (61 per model), "
             "Internet2 with 30 ms and 0.02% per link, 20-155 Mbit/s; dynamic: redraws every "
             "180 s in real time, every strategy trains 380 s. Table II knobs. Samples/s are "
             "per run (one repetition).", ""]
    lines += ["## Fig. 13 / 18: NetStorm over MXNET (samples/s ratio)", "",
              "| figure | paper | testbed static | testbed dynamic |", "|---|---|---|---|",
              "| Fig. 13 NetStorm(-pro) / MXNET | %s static, %s dynamic | %s | %s |" % (
                  PAPER["fig13_static"], PAPER["fig13_dynamic"],
                  fmt(ratio(static, "netstorm-pro", "ps")), fmt(ratio(dynamic, "netstorm-pro", "ps"))),
              "| Fig. 18 lite / MXNET | %s | %s | %s |" % (
                  PAPER["fig18_lite"], fmt(ratio(static, "netstorm-lite", "ps")),
                  fmt(ratio(dynamic, "netstorm-lite", "ps"))),
              "| Fig. 18 std / lite | %s | %s | %s |" % (
                  PAPER["fig18_std_over_lite"], fmt(ratio(static, "netstorm-std", "netstorm-lite")),
                  fmt(ratio(dynamic, "netstorm-std", "netstorm-lite"))),
              "| Fig. 18 pro / MXNET | %s | %s | %s |" % (
                  PAPER["fig18_pro"], fmt(ratio(static, "netstorm-pro", "ps")),
                  fmt(ratio(dynamic, "netstorm-pro", "ps"))), ""]
    lines += ["## Fig. 14: topologies, normalized throughput over STAR", "",
              "| topology | testbed static | testbed dynamic |", "|---|---|---|"]
    for n, label in [("ps", "STAR"), ("bkt", "BKT"), ("mst", "MST"), ("fapt", "FAPT (one root)")]:
        lines.append("| %s | %s | %s |" % (label, fmt(ratio(static, n, "ps")),
                                          fmt(ratio(dynamic, n, "ps"))))
    lines += ["", "Paper: FAPT up to %sx STAR, %sx BKT (static); adaptive FAPT %sx static BKT "
              "(dynamic). Testbed: FAPT/BKT %s static, %s dynamic; FAPT/MST %s static, %s "
              "dynamic." % (PAPER["fig14_fapt_star"], PAPER["fig14_fapt_bkt"],
                            PAPER["fig14_dyn_fapt_bkt"], fmt(ratio(static, "fapt", "bkt")),
                            fmt(ratio(dynamic, "fapt", "bkt")), fmt(ratio(static, "fapt", "mst")),
                            fmt(ratio(dynamic, "fapt", "mst"))), ""]
    fl, fs = figures(dynamic, "netstorm-lite"), figures(dynamic, "netstorm-std")
    lines += ["## Fig. 16: iteration time without and with awareness (dynamic)", "",
              "| | paper | testbed |", "|---|---|---|",
              "| without (lite) | %s s | %s s |" % (PAPER["fig16_lite_s"],
                                                 fmt(fl and fl["mean_iteration_s"])),
              "| with (std) | %s s | %s s |" % (PAPER["fig16_std_s"],
                                              fmt(fs and fs["mean_iteration_s"])),
              "| speed-up | %.2fx | %s |" % (PAPER["fig16_lite_s"] / PAPER["fig16_std_s"],
                                             fmt(ratio(dynamic, "netstorm-std", "netstorm-lite"))),
              ""]
    lines += ["## Fig. 17: auxiliary-path gain over std (dynamic)", "",
              "| PRIMARY_BUSY_BOUND / AUXILIARY_QUEUE_LENGTH | paper | testbed gain |",
              "|---|---|---|"]
    base = sps(dynamic, "netstorm-std")
    points = [("2/1 (Table II)", sps(dynamic, "netstorm-pro")),
              ("2/5 (paper's best)", sps(aux, "netstorm-pro"))]
    for d in sorted(glob.glob(os.path.join(out, "grid-*-*/"))):
        b, q = d.rstrip("/").split("-")[-2:]
        points.append(("%s/%s" % (b, q), sps(load(out, os.path.basename(d.rstrip("/"))),
                                            "netstorm-pro")))
    for label, x in points:
        lines.append("| %s | +30..+65%% | %s |" % (
            label, fmt((x / base - 1) * 100 if x and base else None, "%+.0f%%")))
    lines += ["", "## Where the time went (dynamic runs)", "",
              "Iteration time per network state (0: planned rates, 1: after the 180 s redraw, "
              "2: after 360 s; mean s and count), policy staleness after each redraw (until "
              "an iteration runs a policy rebuilt from measurements taken wholly after it), "
              "the share of chunks on auxiliary paths, and each tree edge's chunk throughput "
              "as its receiver timed it over the configured rate (median, 10th percentile; "
              "after the first redraw).", "",
              "| strategy | iterations | per state | staleness | aux | edge/configured | p10 |",
              "|---|---|---|---|---|---|---|"]
    rows, diag = dynamic_diagnostics(out, "dynamic", dynamic) if dynamic else ([], {})
    lines += rows
    lines += ["", "## Busiest link directions (utilization of the run at the configured rate)",
              "", "| run | mean iteration | busiest directions |", "|---|---|---|"]
    for name, res in [("static", static), ("dynamic", dynamic)]:
        lines += ["| **%s** | | |" % name] + busiest(out, name, res)
    lines += ["", "## Emulation health of every run", "",
              "| scenario | strategy | healthy | release late p50 / p99 ms | CPU saturated | "
              "slowest backlogged link | problems |", "|---|---|---|---|---|---|---|"]
    for name, res in [("static", static), ("dynamic", dynamic), ("aux 2/5", aux)]:
        lines += health_rows(name, res)
    lines.append("")
    lines += causes(out, static, dynamic, aux, diag)
    plot(out, static, dynamic)
    lines += ["![normalized](normalized.png)", "", "![iterations](iterations.png)", ""]
    text = "\n".join(lines)
    open(os.path.join(out, "report.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
