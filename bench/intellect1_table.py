#!/usr/bin/env python3
"""The table of bench/intellect1.sh from its runs (one JSON summary a line, tagged).

Provider sessions: the data centers in at the start and each join (a provider's machine
that comes back is a new session, as INTELLECT-1 counted providers joining and leaving).
Outer steps are rounds committed: Streaming DiLoCo's are fragments' syncs, P per outer step."""
import json
import sys

NAMES = {"na": "one continent (N. America)", "global": "three continents"}


def main(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    print("| setting | system | churn | wire | round | exit | compute utilization (wall) "
          "| over time in | provider sessions | leaves / joins / crashes | outer steps "
          "| final loss | WAN MB | wall s | health |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        m = (r.get("diloco") or {}).get("membership") or {}
        if not m:  # a fixed membership: every worker in throughout
            m = {"members_over_time": [{"members": len(r.get("workers") or {})}]}
        changes = m.get("changes", [])
        count = {k: sum(1 for c in changes if c["change"] == k) for k in ("leave", "join", "crash")}
        over_time = m.get("members_over_time") or [{"members": 0}]
        sessions = over_time[0]["members"] + count["join"]
        h = r.get("health") or {}
        health = "-" if not h else ("healthy" if h.get("healthy") else
                                    "UNHEALTHY: " + "; ".join(h.get("problems", [])))
        util = (r.get("compute_utilization") or {}).get("mean")
        member = (m.get("compute_utilization_of_member_time") or {}).get("mean")
        loss = r.get("final_loss")
        print("| %s | %s | %s | %s | %d | %d | %s | %s | %d | %d / %d / %d | %s | %s | %s | %s | %s |" % (
            NAMES.get(r["bench_continent"], r["bench_continent"]),
            r.get("bench_system", "diloco"), r["bench_churn"],
            r["bench_wire"], r["bench_round"], r["exit"],
            "-" if util is None else "%.3f" % util,
            "-" if member is None else "%.3f" % member,
            sessions, count["leave"], count["join"], count["crash"],
            m.get("outer_steps_committed", "-"),
            "%.4f" % loss if isinstance(loss, (int, float)) else r.get("last_line", "-")[-80:],
            "%.1f" % (r["wan_bytes"] / 1e6) if "wan_bytes" in r else "-",
            "%.1f" % r["wall_s"] if "wall_s" in r else "-", health))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/out/intellect1/runs.jsonl")
