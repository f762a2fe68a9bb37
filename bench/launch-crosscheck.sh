#!/usr/bin/env bash
# The same collective measured both ways on the same lab, in one run: PyTorch's gloo
# all-reduce of N floats (a launched job, examples/pytorch-allreduce) against the
# testbed's own ring all-reduce (`train --strategy rr-sync`, MLfabric's RR-Sync) of a
# dense model of N parameters, on the same workers in the same ring order. The two
# alternate, ROUNDS times, so a drift of the host moves both alike; printed are the
# medians, their ratio, and what each put on every link direction.
#
# What is timed: gloo, each all-reduce from a barrier to its return on every rank, the
# slowest rank's per all-reduce; rr-sync, each clock's communication once every worker
# had its update (train's `communication`, clock_communication.h), compute being 0.
#
# usage: sudo bench/launch-crosscheck.sh [NODES] [SCALE] [REPEAT] [ROUNDS]
#   defaults: seattle,newyork,houston,chicago  0.1 (ResNet-50 x0.1: 2.56 M floats)  5  2
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
python=${PYTHON:-/usr/bin/python3}
nodes=${1:-seattle,newyork,houston,chicago}
scale=${2:-0.1}
repeat=${3:-5}
rounds=${4:-2}
lab=tbb-xcheck
out=bench/results/launch-crosscheck
mkdir -p "$out" bench/out
sed "s/^lab: internet2$/lab: $lab/" profiles/internet2.yaml > bench/out/xcheck.yaml
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$tb" up bench/out/xcheck.yaml --prometheus off >/dev/null

for round in $(seq 1 "$rounds"); do
  "$tb" train "$lab" --strategy rr-sync --model resnet50 --scale "$scale" --workers "$nodes" \
    --iterations "$repeat" --compute-ms 0 --json 2>/dev/null | tail -1 > "$out/rr-sync-$round.json"
  floats=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model_bytes"]//4)' \
    "$out/rr-sync-$round.json")
  "$tb" launch "$lab" --nodes "$nodes" --name gloo --json -- "$python" \
    examples/pytorch-allreduce/allreduce.py --floats "$floats" --repeat "$repeat" \
    2>/dev/null | tail -1 > "$out/gloo-$round.json"
done

python3 - "$out" "$rounds" "$nodes" <<'PY'
import json, statistics, sys
out, rounds, nodes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")

def gloo(d):
    # Iteration i's time is its slowest rank's (the summary's iteration_s).
    return d["iteration_s"]

def rr(d):
    return d["communication"]["per_clock_s"]

rows, g_all, r_all = [], [], []
for k in range(1, rounds + 1):
    g = json.load(open(f"{out}/gloo-{k}.json"))
    r = json.load(open(f"{out}/rr-sync-{k}.json"))
    assert g["status"] == "completed", g["status"]
    gm, rm = statistics.median(gloo(g)), statistics.median(rr(r))
    g_all += gloo(g); r_all += rr(r)
    rows.append((k, gm, rm, g, r))
floats = rows[0][4]["model_bytes"] // 4
lines = [f"# gloo all-reduce against the testbed's ring (rr-sync), {len(nodes)} Internet2 "
         f"nodes ({', '.join(nodes)}), {floats / 1e6:.2f} M floats",
         "", "| round | gloo median s | rr-sync median s | gloo / rr-sync | gloo healthy | rr-sync healthy |",
         "|---|---|---|---|---|---|"]
for k, gm, rm, g, r in rows:
    lines.append(f"| {k} | {gm:.2f} | {rm:.2f} | {gm / rm:.2f} | "
                 f"{not g['health']['problems']} | {not r['health']['problems']} |")
gm, rm = statistics.median(g_all), statistics.median(r_all)
lines.append(f"| all | {gm:.2f} | {rm:.2f} | {gm / rm:.2f} | | |")
# Bytes per collective on each link direction: where each put its traffic.
def per_collective(d, n):
    return {k: v / n for k, v in d["wan_bytes_per_direction"].items()}
g_last, r_last = rows[-1][3], rows[-1][4]
g_dir = per_collective(g_last, len(gloo(g_last)))
r_dir = per_collective(r_last, len(rr(r_last)))
lines += ["", "Bytes per collective on each busy link direction (the last round; the gloo run's "
          "include its rendezvous and barriers):", "",
          "| direction | gloo MB | rr-sync MB |", "|---|---|---|"]
for key in sorted(set(g_dir) | set(r_dir), key=lambda k: -max(g_dir.get(k, 0), r_dir.get(k, 0))):
    if max(g_dir.get(key, 0), r_dir.get(key, 0)) < 0.05 * floats * 4:
        continue
    lines.append(f"| {key} | {g_dir.get(key, 0) / 1e6:.2f} | {r_dir.get(key, 0) / 1e6:.2f} |")
lines.append(f"| all | {sum(g_dir.values()) / 1e6:.2f} | {sum(r_dir.values()) / 1e6:.2f} |")
text = "\n".join(lines) + "\n"
open(f"{out}/table.md", "w").write(text)
print(text)
PY
