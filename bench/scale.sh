#!/usr/bin/env bash
# How the testbed scales: for each size, a generated lab of N nodes and 2N links (a ring
# plus random chords, every pair routed, 10 ms on every link: bench/gen_topology.py), brought
# up and down once with --prometheus off. Per size it prints:
#   up s, down s         wall time of `testbed up` and `testbed down`
#   up MB, down MB       peak resident memory of those commands (/usr/bin/time's %M)
#   lab MB               the largest peak resident memory among the lab's own processes
#                        (delay lines, timeline, exporter: VmHWM, read before down)
#   procs                processes the lab keeps while up
#   plan MB              the plan the lab keeps on disk (plan.json)
#   idle cpu %           the lab's processes' CPU over IDLE_S seconds at rest, in % of one core
#   status s             wall time of `testbed status` (every node and link, as text) on the lab
#   mn s, mn/tb          Mininet's up plus down of linear,N (bench/mininet_peer.py; tc-shaped
#                        links over Linux bridges, no routes), and its ratio to ours
# Absolute times drift on shared machines; the ratio is measured side by side in one run.
#
# A size written starN is a star instead: one hub and N leaves, each leaf's link with its
# own rate and delay (gen_topology.py --star), N+1 nodes and N links.
#
# usage: sudo bench/scale.sh [SIZES...]   (default: 200 1000; e.g. 1000 star2000)
#        MININET_MAX=N: Mininet only up to N nodes (default 500; "-" above); IDLE_S (5)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(200 1000)
tb=${TESTBED:-build/bin/testbed}
mininet_max=${MININET_MAX:-500}
idle_s=${IDLE_S:-5}
out=bench/out
mkdir -p "$out"
ticks=$(getconf CLK_TCK)
run_dir=${TESTBED_RUN_DIR:-/run/testbed}

mininet_running=""
cleanup() {
  "$tb" down tbb-scale >/dev/null 2>&1 || true
  if [ -n "$mininet_running" ]; then mn -c >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

now() { date +%s.%N; }
# The lab's recorded processes' pids.
lab_pids() {
  /usr/bin/python3 -c "import json; print(' '.join(str(p['pid']) for p in json.load(open('$run_dir/tbb-scale/state.json'))['processes']))"
}
cpu_ticks() {  # utime + stime of the given pids, summed
  local total=0 pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

printf '%6s %6s %8s %8s %8s %8s %8s %6s %8s %9s %8s %8s %7s\n' nodes links "up s" "down s" \
  "up MB" "down MB" "lab MB" procs "plan MB" "idle cpu%" "status s" "mn s" "mn/tb"
for size in "${sizes[@]}"; do
  if [[ $size == star* ]]; then
    leaves=${size#star}
    n=$((leaves + 1)) links=$leaves
    python3 bench/gen_topology.py --star "$leaves" --lab tbb-scale > "$out/scale$n.yaml"
  else
    n=$size links=$((2 * size))
    python3 bench/gen_topology.py --nodes "$n" --links "$links" --lab tbb-scale > "$out/scale$n.yaml"
  fi
  t0=$(now)
  /usr/bin/time -f '%M' -o "$out/scale-up.mem" "$tb" up "$out/scale$n.yaml" --prometheus off \
    > /dev/null
  t1=$(now)
  pids=$(lab_pids)
  procs=$(echo "$pids" | wc -w)
  lab_kb=0
  for pid in $pids; do
    kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "${kb:-0}" -gt "$lab_kb" ] && lab_kb=$kb
  done
  plan_mb=$(echo "$(stat -c %s "$run_dir/tbb-scale/plan.json") / 1048576" | bc -l)
  # shellcheck disable=SC2086  # the pids are words
  c0=$(cpu_ticks $pids); sleep "$idle_s"; c1=$(cpu_ticks $pids)
  idle=$(echo "100 * ($c1 - $c0) / $ticks / $idle_s" | bc -l)
  s0=$(now)
  "$tb" status tbb-scale > /dev/null
  status_s=$(echo "$(now) - $s0" | bc -l)
  t2=$(now)
  /usr/bin/time -f '%M' -o "$out/scale-down.mem" "$tb" down tbb-scale > /dev/null
  t3=$(now)
  up_s=$(echo "$t1 - $t0" | bc -l)
  down_s=$(echo "$t3 - $t2" | bc -l)
  mn="-"; ratio="-"
  if [ "$n" -le "$mininet_max" ]; then
    mininet_running=1
    mn=$(bench/mininet_peer.py bringup "$n" | awk '{print $2 + $4}')
    mininet_running=""
    ratio=$(printf '%.1f' "$(echo "$mn / ($up_s + $down_s)" | bc -l)")
    mn=$(printf '%.2f' "$mn")
  fi
  printf '%6s %6s %8.2f %8.2f %8.0f %8.0f %8.0f %6s %8.1f %9.2f %8.2f %8s %7s\n' "$n" "$links" \
    "$up_s" "$down_s" "$(echo "$(cat "$out/scale-up.mem") / 1024" | bc -l)" \
    "$(echo "$(cat "$out/scale-down.mem") / 1024" | bc -l)" "$(echo "$lab_kb / 1024" | bc -l)" \
    "$procs" "$plan_mb" "$idle" "$status_s" "$mn" "$ratio"
done
echo
echo "goals (issue 78): 1000 nodes up < 5 s, down < 1 s, status < 0.5 s; a 10,000-leaf star up < 60 s, down < 10 s, < 4 GiB"
