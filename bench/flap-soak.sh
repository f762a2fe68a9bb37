#!/usr/bin/env bash
# The flap soak (issue: the WAN as it fails): a 1000-node lab (a ring and random chords,
# 2000 links, no delay, so no delay lines) that routes around dead links (`reroute`, its
# default 300 ms convergence), 50 of whose links flap at random, each direction about once
# a second (exponential times: 800 ms up, 200 ms down on average), for MINUTES. bench/soak.py
# samples each minute the memory and open files of the lab's processes (the timeline that
# applies the flaps and converges the routes, the exporter), the changes applied and
# failed and their lag; at the end the convergences from reroutes.csv, with the kernel's
# time per convergence at p50 and p99. It holds when nothing grew and no change failed.
# The lab's files are listed with their sizes at the start and the end: the logs
# (timeline.csv, reroutes.csv) grow by a row per event by design; nothing else may.
#
# usage: sudo bench/flap-soak.sh [MINUTES] [NODES] [FLAPPING]   (default 5, 1000, 50)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
minutes=${1:-5}
nodes=${2:-1000}
flapping=${3:-50}
out=bench/out
lab=tbb-flapsoak
mkdir -p "$out"
trap '"$tb" down "$lab" >/dev/null 2>&1 || true' EXIT
python3 bench/gen_topology.py --nodes "$nodes" --links $((2 * nodes)) --delay 0ms \
  --bandwidth 100mbit --flaps "$flapping" --reroute 300ms --lab "$lab" > "$out/flap-soak.yaml"
"$tb" up "$out/flap-soak.yaml" --prometheus off >/dev/null
run_dir=${TESTBED_RUN_DIR:-/run/testbed}/$lab
files() { (cd "$run_dir" && find . -type f -printf '%s %p\n' | sort -k2); }
files > "$out/flap-soak-files-start.txt"
held=0
python3 bench/soak.py "$tb" "$lab" 0 "$minutes" "$out/flap-soak-rows.json" |
  tee "$out/flap-soak.txt" || held=$?
files > "$out/flap-soak-files-end.txt"
echo "files of the lab (bytes at the start -> at the end):" | tee -a "$out/flap-soak.txt"
join -1 2 -2 2 -a 1 -a 2 -e new -o 0,1.1,2.1 "$out/flap-soak-files-start.txt" \
  "$out/flap-soak-files-end.txt" | awk '$2 != $3 {print "  " $1 ": " $2 " -> " $3}' |
  tee -a "$out/flap-soak.txt"
[ "$held" -eq 0 ]
