#!/usr/bin/env python3
"""The table of bench/elastic.sh from its runs (one JSON summary a line, tagged)."""
import json
import sys


def main(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    print("| run | round | exit | final loss | outer steps committed | changes (seconds lost) "
          "| compute utilization | wall s | health |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        m = (r.get("diloco") or {}).get("membership") or {}
        def change(c):
            s = "%s %s at step %s (%.2f s lost" % (c["change"], c["node"], c["outer_step"],
                                                   c["seconds_lost"])
            if c["change"] == "join":
                s += "; model %d B in %.2f s" % (c["catch_up_bytes"], c["catch_up_s"] or 0)
            return s + ")"
        changes = ", ".join(change(c) for c in m.get("changes", [])) or "-"
        h = r.get("health") or {}
        health = "-" if not h else ("healthy" if h.get("healthy") else
                                    "UNHEALTHY: " + "; ".join(h.get("problems", [])))
        util = (r.get("compute_utilization") or {}).get("mean")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["bench_label"], r["bench_round"], r["exit"],
            "%.6f" % r["final_loss"] if "final_loss" in r else r.get("last_line", "-")[-90:],
            m.get("outer_steps_committed", (r.get("diloco") or {}).get("outer_steps", "-")),
            changes, "-" if util is None else "%.3f" % util,
            "%.1f" % r["wall_s"] if "wall_s" in r else "-", health))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/out/elastic/runs.jsonl")
