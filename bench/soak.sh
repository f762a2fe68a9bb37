#!/usr/bin/env bash
# The soak: a 100-node lab (a ring and random chords, 120 links, 10 ms each way) whose
# every link direction gets a new random rate every second, while one training run goes
# on for the whole time (the tree strategy mst, ResNet-50 x0.001, 100 ms of compute a
# node and iteration). bench/soak.py samples each minute the memory and open files of
# every testbed process of the lab, the timeline's changes (applied, failed, lag) and the
# delay lines' release lateness; it holds when nothing grew, no change failed and the run
# completed. The table and its rows (JSON) land in bench/out/.
#
# usage: sudo bench/soak.sh [MINUTES]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
minutes=${1:-30}
out=bench/out
lab=tbb-soak
mkdir -p "$out"
train=
cleanup() {
  [ -n "$train" ] && kill "$train" 2>/dev/null && wait "$train" 2>/dev/null
  "$tb" down "$lab" >/dev/null 2>&1 || true
}
trap cleanup EXIT

python3 bench/gen_topology.py --nodes 100 --links 120 --every 1s --lab "$lab" > "$out/soak.yaml"
"$tb" up "$out/soak.yaml" --prometheus off >/dev/null
# Many more iterations than fit: --max-seconds ends the run, the iteration under way done.
"$tb" train "$lab" --strategy mst --scale 0.001 --oracle --compute-ms 100 \
  --iterations 100000000 --max-seconds $((minutes * 60)) --json \
  > "$out/soak-train.json" 2> "$out/soak-train.log" &
train=$!
held=0
python3 bench/soak.py "$tb" "$lab" "$train" "$minutes" "$out/soak-rows.json" | tee "$out/soak.txt" ||
  held=$?
status=0
wait "$train" || status=$?
train=
python3 - "$out/soak-train.json" "$status" <<'PY' | tee -a "$out/soak.txt"
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    s = {}
print(f"train: exit {sys.argv[2]}, {s.get('iterations', 0)} iterations, ended by "
      f"{s.get('ended', '?')}, stalls {len(s.get('stalls', []))}, "
      f"health: {'healthy' if s.get('health', {}).get('healthy') else 'unhealthy'}")
PY
[ "$status" -eq 0 ] && [ "$held" -eq 0 ]
