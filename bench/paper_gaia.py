#!/usr/bin/env python3
"""The table of bench/paper-gaia.sh: Gaia against Baseline and LAN, paper beside ours."""
import json
import sys

PAPER = {  # Gaia's speed-up over Baseline (MF), and Gaia's time against LAN's
    "gaia-vc": "3.7x (Fig. 9, full speed)",
    "gaia-ss": "25.4x (Fig. 10, full speed)",
    "gaia-11": "2.0x emulation-EC2, 3.8x full speed (Fig. 8)",
}
LAN_OF = {"gaia-vc": "gaia-lan-2", "gaia-ss": "gaia-lan-2", "gaia-11": "gaia-lan-11"}


def main():
    runs = [json.loads(line) for line in open(sys.argv[1])]
    jobs = []
    for r in runs:
        r.setdefault("job", "mf")
        if r["job"] not in jobs:
            jobs.append(r["job"])
    for job in jobs:
        print(f"### Job {job}")
        print()
        table([r for r in runs if r["job"] == job], job)
        print()


def fmt_s(seconds):
    return f"{seconds:.1f}" if seconds else "not reached"


def health_cell(g, b, unhealthy):
    """The emulation's own verdict on the two runs; rows written before it was kept say so."""
    if any("healthy" not in r["health"] for r in (g, b)):
        return "not recorded"
    if not unhealthy:
        return "healthy"
    problems = [p for r in (g, b) for p in (r["health"].get("problems") or [])]
    return "flagged: " + ", ".join(unhealthy) + (f" ({problems[0]})" if problems else "")


def at_threshold(shares, thresholds, threshold):
    return next(s for s, t in zip(shares, thresholds) if abs(t - threshold) < 1e-12)


def last_quarter(f):
    share = f.get("held_back_share_last_quarter")
    return "-" if share is None else f"{share:.1%}"


def fig5(f):
    """The paper's Fig. 5 figure at 1%: the share of single workers' updates below it."""
    w = f.get("worker_updates")
    if not w:
        return "not recorded"
    run = at_threshold(w["insignificant_share"], w["thresholds"], 0.01)
    last = at_threshold(w["insignificant_share_last_quarter"], w["thresholds"], 0.01)
    return f"{run:.1%} / {last:.1%}"


FIG5_PAPER = {0.01: "95.2%", 0.05: "98.8%"}  # MF, Sec. 3.3


def fig5_table(runs, paper):
    """Fig. 5 of the paper beside ours: workers' updates below each threshold, per run."""
    runs = [r for r in runs if r and r.get("gaia", {}).get("worker_updates")]
    if not runs:
        return
    thresholds = runs[0]["gaia"]["worker_updates"]["thresholds"]
    print("Fig. 5: the share of single workers' updates that change their parameter by less "
          "than the threshold, over the run / its last quarter of clocks")
    print()
    names = [r["profile"] + ("" if r["label"] == "gaia" else " " + r["label"]) for r in runs]
    print(f"| threshold | paper{' (MF)' if paper else ''} | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(runs))
    for i, t in enumerate(thresholds):
        cells = []
        for r in runs:
            w = r["gaia"]["worker_updates"]
            cells.append(f"{w['insignificant_share'][i]:.1%} / "
                         f"{w['insignificant_share_last_quarter'][i]:.1%}")
        print(f"| {t:.2%} | {paper.get(t, '-')} | " + " | ".join(cells) + " |")


def ssp_table(rows):
    """Appendix B: SSP inside the data centers against BSP, with stragglers inside them."""
    by = {r["label"][len("stragglers: "):]: r for r in rows}
    if not by:
        return
    print()
    print("SSP inside the data centers (V/C, stragglers 10%:4), Appendix B:")
    print()
    print("| run | time to target s | final loss | mean clock s | health |")
    print("|---|---|---|---|---|")
    for label, r in by.items():
        health = "healthy" if r["health"].get("healthy") else "flagged"
        print(f"| {label} | {fmt_s(r['time_to_target_s'])} | {r['final_loss']:.4f} "
              f"| {r['mean_iteration_s']:.3f} | {health} |")
    t = {k: r["time_to_target_s"] for k, r in by.items()}
    if t.get("Gaia, SSP 3 inside") and t.get("Baseline, SSP 3"):
        print()
        print(f"Baseline / Gaia with SSP: {t['Baseline, SSP 3'] / t['Gaia, SSP 3 inside']:.2f}x "
              "(paper, MF on V/C: 2.6x)" +
              (f"; with BSP: {t['Baseline, BSP'] / t['Gaia, BSP inside']:.2f}x"
               if t.get("Baseline, BSP") and t.get("Gaia, BSP inside") else ""))


def table(runs, job):
    by = {(r["profile"], r["label"]): r for r in runs}

    def ttt(profile, label):
        r = by.get((profile, label))
        return r and r["time_to_target_s"]

    print("| WAN | Gaia s | Baseline s | LAN s | Baseline/Gaia | paper | Gaia/LAN (paper 0.94-1.40) "
          "| WAN MB Gaia / Baseline | held back at 1%: run / last quarter "
          "| workers' updates under 1%: run / last quarter (paper >95%) "
          "| reads held: barrier / clock | health |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for profile in ("gaia-vc", "gaia-ss", "gaia-11"):
        g, b = by.get((profile, "gaia")), by.get((profile, "baseline"))
        if not g or not b:
            if g or b:
                print(f"| {profile} | {'missing' if not g else ''} | {'missing' if not b else ''} "
                      "| | | | | | | | | a run failed: see the bench's output |")
            continue
        lan = ttt(LAN_OF[profile], "lan")
        lan_cell = fmt_s(lan) if (LAN_OF[profile], "lan") in by else "not run"
        gt, bt = g["time_to_target_s"], b["time_to_target_s"]
        f = g["gaia"]
        ratio = lambda a, c: f"{a / c:.2f}x" if a and c else "-"
        unhealthy = [r["label"] for r in (g, b) if r["health"].get("healthy") is False]
        paper = PAPER[profile] if job == "mf" else "-"
        print(f"| {profile} | {fmt_s(gt)} | {fmt_s(bt)} | {lan_cell} | {ratio(bt, gt)} | {paper} "
              f"| {ratio(gt, lan)} | {g['wan_bytes'] / 1e6:.1f} / {b['wan_bytes'] / 1e6:.1f} "
              f"| {f['held_back_share']:.1%} / {last_quarter(f)} | {fig5(f)} "
              f"| {f['reads_blocked_by_barrier']:.0f} "
              f"({f['blocked_s_barrier']:.0f} s) / {f['reads_blocked_by_mirror_clock']:.0f} "
              f"({f['blocked_s_mirror_clock']:.0f} s) | {health_cell(g, b, unhealthy)} |")
    print()
    fig5_table([by.get((p, "gaia")) for p in ("gaia-vc", "gaia-ss", "gaia-11")] +
               [by.get(("gaia-vc", "long"))], FIG5_PAPER if job == "mf" else {})
    long = by.get(("gaia-vc", "long"))
    if long and long.get("gaia", {}).get("held_back_share_last_quarter") is not None:
        g = long["gaia"]
        print()
        print(f"Gaia on V/C run on to {long.get('iterations', 300)} clocks: the filter held back "
              f"{g['held_back_share']:.1%} of the updates over the run and "
              f"{g['held_back_share_last_quarter']:.1%} over its last quarter; final loss "
              f"{long['final_loss']:.4f}, {long['wan_bytes'] / 1e6:.1f} WAN MB.")
    ssp_table([r for r in runs if r["label"].startswith("stragglers: ")])
    print()
    print(f"Final loss of {job}, Gaia against BSP (Baseline) after the same clocks:")
    for profile in ("gaia-vc", "gaia-ss", "gaia-11"):
        g, b = by.get((profile, "gaia")), by.get((profile, "baseline"))
        if g and b:
            print(f"- {profile}: Gaia {g['final_loss']:.4f}, BSP {b['final_loss']:.4f} "
                  f"({(g['final_loss'] / b['final_loss'] - 1):+.2%}); target {g['target_loss']:.4f}")
    sens = [r for r in runs if r["label"].startswith("gaia") and r["profile"] == "gaia-vc"]
    if len(sens) > 1:
        print()
        print("| threshold (V/C) | time to target s | final loss | held back | WAN MB |")
        print("|---|---|---|---|---|")
        for r in sorted(sens, key=lambda r: r["gaia"]["threshold"]):
            t = r["time_to_target_s"]
            print(f"| {r['gaia']['threshold']:.1%} | {t:.1f} | {r['final_loss']:.4f} "
                  f"| {r['gaia']['held_back_share']:.1%} | {r['wan_bytes'] / 1e6:.1f} |" if t else
                  f"| {r['gaia']['threshold']:.1%} | not reached | {r['final_loss']:.4f} "
                  f"| {r['gaia']['held_back_share']:.1%} | {r['wan_bytes'] / 1e6:.1f} |")


if __name__ == "__main__":
    main()
