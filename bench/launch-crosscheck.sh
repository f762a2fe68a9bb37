#!/usr/bin/env bash
# The same collective measured both ways on the same lab, in one run: PyTorch's gloo
# all-reduce of N floats (a launched job, examples/pytorch-allreduce) against the
# testbed's own ring all-reduce (`train --strategy rr-sync`, MLfabric's RR-Sync) of a
# dense model of N parameters, on the same workers in the same ring order. The two
# alternate, ROUNDS times, so a drift of the host moves both alike; printed are the
# medians, their ratio, and what each put on every link direction.
#
# What is timed, the same way for both: each collective from the moment the last worker
# began it (its update ready; for gloo, its all_reduce call) to the moment the last worker
# held the sum, on the host's monotonic clock that every node shares (rr-sync: train's
# `communication`, clock_communication.h; gloo: the stamps allreduce.py reports).
#
# usage: sudo bench/launch-crosscheck.sh [NODES] [FLOATS[,FLOATS...]] [REPEAT] [ROUNDS]
#   defaults: seattle,newyork,houston,chicago  2560000  5  2
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
python=${PYTHON:-/usr/bin/python3}
nodes=${1:-seattle,newyork,houston,chicago}
sizes=${2:-2560000}   # FLOATS, or a comma list of sizes to sweep
repeat=${3:-5}
rounds=${4:-2}
lab=tbb-xcheck
out=${OUT:-bench/results/launch-crosscheck}
mkdir -p "$out" bench/out
sed "s/^lab: internet2$/lab: $lab/" profiles/internet2.yaml > bench/out/xcheck.yaml
"$tb" plan bench/out/xcheck.yaml --json --routes > bench/out/xcheck-plan.json
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
# REPORT_ONLY=1: the tables again from the results already in OUT, nothing run.
if [ -z "${REPORT_ONLY:-}" ]; then
rm -rf "$out"/*.json "$out"/gloo-*/
"$tb" up bench/out/xcheck.yaml --prometheus off >/dev/null
for size in ${sizes//,/ }; do
  # rr-sync's dense job is a named model times a scale: ResNet-50's 23 M parameters
  # (controller/options/workload_settings.cpp) scaled to SIZE. gloo then gets exactly the size
  # the run reports (job.parameters), so both reduce the same number of floats.
  scale=$(python3 -c "print(repr($size / 23e6))")
  for round in $(seq 1 "$rounds"); do
    "$tb" train "$lab" --strategy rr-sync --model resnet50 --scale "$scale" --workers "$nodes" \
      --iterations "$repeat" --compute-ms 0 --json 2>/dev/null | tail -1 > "$out/rr-sync-$size-$round.json"
    floats=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["parameters"])' \
      "$out/rr-sync-$size-$round.json")
    "$tb" launch "$lab" --nodes "$nodes" --name gloo --json -- "$python" \
      examples/pytorch-allreduce/allreduce.py --floats "$floats" --repeat "$repeat" \
      2>/dev/null | tail -1 > "$out/gloo-$size-$round.json"
    # The ranks' own metric lines (start and end stamps) outlive the lab here.
    mkdir -p "$out/gloo-$size-$round"
    cp "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' \
      "$out/gloo-$size-$round.json")"/*.metrics.jsonl "$out/gloo-$size-$round/"
  done
done
fi

python3 - "$out" "$rounds" "$nodes" "$sizes" <<'PY'
import json, statistics, sys
out, rounds, nodes, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4].split(",")
plan = json.load(open("bench/out/xcheck-plan.json"))
rate = {}   # "from>to" -> bits/s
delay = {}  # "from>to" -> one-way seconds
for link in plan["links"]:
    for d in (link["a2b"], link["b2a"]):
        rate[f"{d['from']}>{d['to']}"] = d["rate_bits_per_s"]
        delay[f"{d['from']}>{d['to']}"] = d["delay_us"] / 1e6
paths = {(r["node"], r["destination"]): r["path"] for r in plan["routes"]}
# The ring, as both run it: rank order, each rank sending to the next.
hops = [(nodes[i], nodes[(i + 1) % len(nodes)]) for i in range(len(nodes))]
def hop_delay(a, b):
    p = paths[(a, b)]
    return sum(delay[f"{x}>{y}"] for x, y in zip(p, p[1:]))
# Two latency floors, for the two ways a ring can run its 2(W-1) steps:
# - pipelined: every worker forwards a segment as soon as it has it, so the last segment
#   to finish crosses 2(W-1) consecutive hops: the largest sum of 2(W-1) consecutive hop
#   delays around the ring;
# - lock-step, round trips: each step waits for the slowest hop, and a send waits for the
#   receiver's go-ahead first: 2(W-1) times the slowest hop's round trip.
steps = 2 * (len(nodes) - 1)
d = [hop_delay(a, b) for a, b in hops]
pipelined_floor = max(sum(d[(s + j) % len(d)] for j in range(steps)) for s in range(len(d)))
lockstep_rtt_floor = steps * 2 * max(d)

def gloo_collectives(d, size, k):
    # Per all-reduce: the last rank's end minus the last rank's start, from the ranks'
    # metric lines (each node's file in the run directory).
    starts, ends = {}, {}
    for n in d["nodes"]:
        for line in open(f"{out}/gloo-{size}-{k}/{n['node']}.metrics.jsonl"):
            m = json.loads(line)
            i = m["iteration"]
            starts[i] = max(starts.get(i, 0), m["start_monotonic"])
            ends[i] = max(ends.get(i, 0), m["end_monotonic"])
    return [ends[i] - starts[i] for i in sorted(ends)]

def per_collective(d, n):
    return {k: v / n for k, v in d["wan_bytes_per_direction"].items()}
def rate_floor(dirs):
    return max(b * 8 / rate[k] for k, b in dirs.items())

lines = [f"# gloo all-reduce against the testbed's ring (rr-sync) on {len(nodes)} Internet2 nodes",
         "", f"Ring (rank order, both): {' -> '.join(nodes)} -> {nodes[0]}; hop paths: " +
         "; ".join(f"{a}>{b} via {len(paths[(a, b)]) - 1} links, {hop_delay(a, b) * 1e3:.0f} ms" for a, b in hops),
         "", "Medians over every collective of every round, the rounds alternating between the two; each "
         "collective from the last worker's start to the last worker's end. Floors: link rate, the busiest "
         "direction's bytes per collective over its rate; pipelined latency, the largest sum of 2(W-1) "
         "consecutive ring hops' one-way delays (a ring that forwards as soon as it can); lock-step "
         "round trips, 2(W-1) times the slowest hop's round trip (a ring whose every step waits for "
         "the slowest hop and for the receiver's go-ahead).", "",
         "| floats | gloo s | rr-sync s | gloo / rr-sync | rate floor s | pipelined latency floor s | "
         "lock-step round-trip floor s | gloo MB | rr-sync MB | all healthy |",
         "|---|---|---|---|---|---|---|---|---|---|"]
detail, own = [], {}
for size in sizes:
    g_all, g_own, r_all, healthy = [], [], [], True
    for k in range(1, rounds + 1):
        g = json.load(open(f"{out}/gloo-{size}-{k}.json"))
        r = json.load(open(f"{out}/rr-sync-{size}-{k}.json"))
        assert g["status"] == "completed", g["status"]
        g_all += gloo_collectives(g, size, k); r_all += r["communication"]["per_clock_s"]
        g_own += g["iteration_s"]
        healthy &= not g["health"]["problems"] and not r["health"]["problems"]
        detail.append(f"| {size} | {k} | {statistics.median(gloo_collectives(g, size, k)):.2f} | "
                      f"{statistics.median(g['iteration_s']):.2f} | "
                      f"{statistics.median(r['communication']['per_clock_s']):.2f} |")
    floats = r["job"]["parameters"]
    g_dir = per_collective(g, len(g["iteration_s"]))
    own[size] = statistics.median(g_own)
    r_dir = per_collective(r, len(r["communication"]["per_clock_s"]))
    gm, rm = statistics.median(g_all), statistics.median(r_all)
    lines.append(f"| {floats / 1e6:.2f} M | {gm:.2f} | {rm:.2f} | {gm / rm:.2f} | "
                 f"{rate_floor(r_dir):.2f} | {pipelined_floor:.2f} | {lockstep_rtt_floor:.2f} | "
                 f"{sum(g_dir.values()) / 1e6:.1f} | "
                 f"{sum(r_dir.values()) / 1e6:.1f} | {healthy} |")
lines += ["", "Each round; gloo also as each rank times its own call (from its start, the "
          "slowest rank's; this includes waiting for the last rank to start):", "",
          "| floats | round | gloo s | gloo, own call s | rr-sync s |", "|---|---|---|---|---|"] + detail
lines += ["", f"Bytes per collective on each busy direction, {sizes[-1]} floats, last round "
          "(gloo's include its rendezvous and barriers):", "",
          "| direction | rate Mbit/s | gloo MB | rr-sync MB |", "|---|---|---|---|"]
for key in sorted(set(g_dir) | set(r_dir), key=lambda k: -max(g_dir.get(k, 0), r_dir.get(k, 0))):
    if max(g_dir.get(key, 0), r_dir.get(key, 0)) < 0.05 * floats * 4:
        continue
    lines.append(f"| {key} | {rate[key] / 1e6:.0f} | {g_dir.get(key, 0) / 1e6:.2f} | {r_dir.get(key, 0) / 1e6:.2f} |")
text = "\n".join(lines) + "\n"
open(f"{out}/table.md", "w").write(text)
print(text)
PY
