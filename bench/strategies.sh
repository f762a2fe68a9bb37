#!/usr/bin/env bash
# The synchronization strategies side by side on Internet2 in one run: mean iteration time
# and speed-up over the PS star (static links, the strategies measuring the links at start),
# then NetStorm-lite against NetStorm-std while the links redraw their rates (NetStorm's
# dynamics, time-compressed).
#
# usage: sudo bench/strategies.sh [SCALE] [ITERATIONS]   (default 0.1 of ResNet-50, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
scale=${1:-0.1}
iterations=${2:-3}
out=bench/out
mkdir -p "$out"
cleanup() {
  "$tb" down tbb-strategies >/dev/null 2>&1 || true
  "$tb" down tbb-dynamic >/dev/null 2>&1 || true
}
trap cleanup EXIT

sed 's/^lab: internet2$/lab: tbb-strategies/' profiles/internet2.yaml > "$out/strategies.yaml"
"$tb" up "$out/strategies.yaml" >/dev/null
: > "$out/strategies.txt"
for s in ps bkt mst fapt netstorm-lite netstorm-std; do
  "$tb" train tbb-strategies --strategy "$s" --iterations "$iterations" --scale "$scale" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["strategy"], d["mean_iteration_s"])' >> "$out/strategies.txt"
done
"$tb" down tbb-strategies >/dev/null
echo "static Internet2, ResNet-50 x$scale, $iterations iterations each, links measured at start"
python3 - "$out/strategies.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
ps = float(rows[0][1])
print("%-14s %12s %12s" % ("strategy", "s/iteration", "speed-up/ps"))
for name, t in rows:
    print("%-14s %12.2f %12.2f" % (name, float(t), ps / float(t)))
PY

# Every 180 s of schedule time each direction redraws 20..155 Mbit/s: at 0.02 that is
# every 3.6 s, so a run of a few tens of seconds sees several redraws.
sed 's/^lab: internet2-dynamic$/lab: tbb-dynamic/' profiles/internet2-dynamic.yaml > "$out/dynamic.yaml"
echo
echo "dynamic Internet2 (NetStorm's redraws every 180 s, time-scaled x0.02), $(( iterations * 4 )) iterations"
for s in netstorm-lite netstorm-std; do
  "$tb" up "$out/dynamic.yaml" --time-scale 0.02 >/dev/null
  "$tb" train tbb-dynamic --strategy "$s" --iterations $(( iterations * 4 )) --scale "$scale" --update-time 2 --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("%-14s %12.2f s/iteration, policy v%d" % (d["strategy"], d["mean_iteration_s"], d["policy"]["version"]))'
  "$tb" down tbb-dynamic >/dev/null
done
