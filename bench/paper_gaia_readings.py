#!/usr/bin/env python3
"""The table of `bench/paper-gaia.sh --readings`: each row's runs with their spread, for both
readings of t and with and without Gaia's data-center groups, the paper's figures beside.

A row's time is the mean of its runs with the range; two rows whose ranges overlap, or whose
means are within 15% when a row has one run, are reported as a tie, not an ordering. The
bytes on the slowest links are those of the fifth of the profile's links with the lowest
rates (both directions), where the broadcast's traffic hurts most.
"""
import json
import re
import statistics
import sys
from pathlib import Path

PAPER = {  # Baseline / Gaia (MF) and where Gaia stands against LAN
    "gaia-vc": "3.7x", "gaia-ss": "25.4x", "gaia-11": "2.0x emulated, 3.8x full speed"}
LAN_OF = {"gaia-vc": "gaia-lan-2", "gaia-ss": "gaia-lan-2", "gaia-11": "gaia-lan-11"}
TIE = 0.15  # means this close, with one run a row, are within this machine's spread


def slowest_links(profile):
    """The directions ("a>b") of the fifth of the profile's links with the lowest rates."""
    text = Path("profiles", profile + ".yaml").read_text()
    links = [(int(m[3]), m[1], m[2]) for m in
             re.finditer(r"endpoints: \[(\w+), (\w+)\], bandwidth: (\d+)kbit", text)]
    links.sort()
    keep = links[:max(1, len(links) // 5)]
    return [f"{a}>{b}" for _, a, b in keep] + [f"{b}>{a}" for _, a, b in keep]


def stats(runs, key):
    xs = [r[key] for r in runs if r.get(key) is not None]
    if not xs:
        return None
    return statistics.mean(xs), min(xs), max(xs), len(xs)


def cell(s, unit=""):
    if not s:
        return "not reached"
    mean, lo, hi, n = s
    return f"{mean:.1f}{unit}" if n == 1 else f"{mean:.1f}{unit} ({lo:.1f}-{hi:.1f}, {n} runs)"


def tie(a, b):
    """Whether two rows' times cannot be ordered: ranges overlap, or means within TIE."""
    if not a or not b:
        return False
    if a[3] > 1 and b[3] > 1:
        return a[1] <= b[2] and b[1] <= a[2]
    return abs(a[0] - b[0]) / min(a[0], b[0]) < TIE


def ratio(a, b):
    if not a or not b:
        return "-"
    return f"{a[0] / b[0]:.2f}x" + (" (tie)" if tie(a, b) else "")


def main():
    runs = [json.loads(line) for line in open(sys.argv[1])]
    rows = {}
    for r in runs:
        rows.setdefault((r["profile"], r["label"]), []).append(r)
    print("| WAN | t | row | time to target s | WAN MB | slowest links MB | final loss "
          "| held back | health |")
    print("|---|---|---|---|---|---|---|---|---|")
    for profile in ("gaia-vc", "gaia-ss", "gaia-11"):
        slow = slowest_links(profile)
        for t in ("pass", "clock"):
            for row in ("gaia", "gaia, no groups", "gaia, groups by hand", "baseline"):
                label = f"{row} t={t}" if "," not in row else f"gaia t={t}, {row[6:]}"
                rs = rows.get((profile, label))
                if not rs:
                    continue
                wan = statistics.mean(r["wan_bytes"] for r in rs) / 1e6
                slow_mb = statistics.mean(
                    sum((r.get("wan_bytes_per_direction") or {}).get(d, 0) for d in slow)
                    for r in rs) / 1e6
                loss = statistics.mean(r["final_loss"] for r in rs)
                held = [r["gaia"]["held_back_share"] for r in rs if r.get("gaia")]
                held_cell = f"{statistics.mean(held):.1%}" if held else "-"
                flagged = sum(1 for r in rs if r["health"].get("healthy") is False)
                health = "healthy" if not flagged else f"{flagged} of {len(rs)} flagged"
                print(f"| {profile} | {t} | {row} | {cell(stats(rs, 'time_to_target_s'))} "
                      f"| {wan:.1f} | {slow_mb:.2f} | {loss:.4f} | {held_cell} | {health} |")
    print()
    print("| WAN | t | Baseline / Gaia (paper) | Baseline / Gaia without groups "
          "| Baseline / Gaia, groups by hand | Gaia / LAN (paper 0.94-1.40) |")
    print("|---|---|---|---|---|---|")
    for profile in ("gaia-vc", "gaia-ss", "gaia-11"):
        for t in ("pass", "clock"):
            g = stats(rows.get((profile, f"gaia t={t}"), []), "time_to_target_s")
            n = stats(rows.get((profile, f"gaia t={t}, no groups"), []), "time_to_target_s")
            h = stats(rows.get((profile, f"gaia t={t}, groups by hand"), []), "time_to_target_s")
            b = stats(rows.get((profile, f"baseline t={t}"), []), "time_to_target_s")
            lan = stats(rows.get((LAN_OF[profile], f"lan t={t}"), []), "time_to_target_s")
            if not g and not b:
                continue
            print(f"| {profile} | {t} | {ratio(b, g)} ({PAPER[profile]}) "
                  f"| {ratio(b, n) if n else '-'} | {ratio(b, h) if h else '-'} "
                  f"| {ratio(g, lan)} |")
    groups = next((r["gaia"].get("overlay") for r in runs
                   if r["profile"] == "gaia-11" and r.get("gaia", {}).get("groups_spec") == "auto"),
                  None)
    if groups:
        print()
        print("Groups on gaia-11: " + " / ".join(", ".join(g) for g in groups["groups"]))
    targets = {(r["profile"], r.get("step_t")): r["target_loss"] for r in runs}
    print()
    print("Targets (single-process BSP where Sec. 5.3's rule says it converged): " +
          "; ".join(f"{p} t={t}: {v:.4f}" for (p, t), v in sorted(targets.items())))


if __name__ == "__main__":
    main()
