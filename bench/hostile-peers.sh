#!/usr/bin/env bash
# The garbage test: during `train --strategy bsp --model mf` on Internet2, a process in
# houston's namespace opens 40 TCP connections to chicago's agent port (7100) and sends
# each a ZMTP greeting, the NULL mechanism's READY (as ZeroMQ's own DEALER would), random
# multipart messages and random bytes, once the run is at iteration 22. The run
# must complete every iteration and report what its agents refused. One row per seed;
# with TESTBED=PATH another build (one without the run's secret died here, at iteration 22
# of 200, "node chicago: malformed message: 3 frames").
#
# usage: sudo bench/hostile-peers.sh [ITERATIONS] [SEEDS]   (default 200, "1 2 3")
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
iterations=${1:-200}
seeds=${2:-1 2 3}
out=bench/out
lab=tbb-hostile
mkdir -p "$out"
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT

sed "s/^lab: internet2$/lab: $lab/" profiles/internet2.yaml > "$out/hostile.yaml"
"$tb" up "$out/hostile.yaml" --prometheus off >/dev/null
chicago=$("$tb" status "$lab" --json |
  python3 -c 'import json,sys; print(next(n["address"] for n in json.load(sys.stdin)["nodes"] if n["name"] == "chicago"))')

printf "%-5s %-10s %11s %9s %16s %15s\n" seed exit iterations "wall s" "refused (total)" "malformed"
for seed in $seeds; do
  log="$out/hostile-$seed.log"
  "$tb" train "$lab" --strategy bsp --model mf --iterations "$iterations" --json > "$log" 2>&1 &
  train=$!
  for _ in $(seq 1 600); do  # up to 60 s to reach iteration 22
    grep -q '"iteration":22,' "$log" && break
    sleep 0.1
  done
  "$tb" exec --lab "$lab" houston -- /usr/bin/python3 bench/zmtp_garbage.py "$chicago" "$seed" >/dev/null || true
  status=0
  wait "$train" || status=$?
  python3 - "$log" "$seed" "$status" <<'PY'
import json, sys
log, seed, status = sys.argv[1], sys.argv[2], sys.argv[3]
summary = None
for line in open(log):
    if line.startswith("{") and not line.startswith('{"event":"iteration"'):
        summary = json.loads(line)
if summary is None:
    died = [l.strip() for l in open(log) if "testbed train:" in l]
    print("%-5s %-10s %11s %9s %16s %15s  %s" % (seed, status, "-", "-", "-", "-", died[-1] if died else ""))
else:
    p = summary.get("peers", {"refused_connections": {}, "refused_total": 0, "malformed_total": 0})
    print("%-5s %-10s %11d %9.1f %16s %15d" % (seed, status, summary["iterations"], summary["wall_s"],
          "%d (%d)" % (p["refused_connections"].get("chicago", 0), p["refused_total"]), p["malformed_total"]))
PY
done
