#!/usr/bin/env bash
# The delay line's CPU per packet, two builds side by side: each round brings up the same
# link (66 Mbit/s, 30 ms each way: Internet2's chicago -> newyork) with one build, then the
# other, and runs iperf3 across it with 1 flow and with 8. For each it prints the goodput,
# the packets the two nodes received (data and ACKs: every one crossed a delay line), the
# delay lines' CPU (user + system) and its microseconds per packet, the release lateness
# (p99, whole and the emulator's own) from the delay lines' own figures, and ping's RTT on
# the idle link after. Rounds alternate the builds, so a
# drift of the shared host falls on both alike; the last lines are new/old ratios of the
# medians.
#
# usage: sudo bench/delayline-cpu.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS] [SECONDS]
#        (a BIN_DIR holds testbed, testbed-agent and testbed-delayline of one build)
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: delayline-cpu.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS] [SECONDS]}
new=${2:?usage: delayline-cpu.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS] [SECONDS]}
rounds=${3:-3}
secs=${4:-10}
out=bench/out/delayline-cpu
mkdir -p "$out"
lab=tbb-dlcpu
tb=""
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$tb" ] && "$tb" down "$lab" >/dev/null 2>&1 || true
}
trap cleanup EXIT

cat > "$out/link.yaml" <<YAML
lab: $lab
nodes: {a: {}, b: {}}
links:
  - endpoints: [a, b]
    bandwidth: 66mbit
    delay: 30ms
YAML

ticks_of_lines() {  # utime + stime of the lab's delay lines, in clock ticks
  local t=0
  for p in $(pgrep -f "testbed-delayline --control /run/testbed/$lab/"); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}
rx_packets() {  # packets received on both nodes' links
  local n=0
  for node in a b; do
    for c in $("$tb" exec --lab "$lab" "$node" -- ip -s -j link show type veth |
      python3 -c 'import json,sys; print(*[l["stats64"]["rx"]["packets"] for l in json.load(sys.stdin)])'); do
      n=$((n + c))
    done
  done
  echo "$n"
}
stats() {  # each delay line's lateness histograms, into $1
  : > "$1"
  for sock in /run/testbed/$lab/delayline-*.sock; do
    local name="bench-stats-$(basename "$sock" .sock)"
    rm -f "/run/testbed/$lab/$name"
    python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(("stats " + sys.argv[2]).encode(), sys.argv[1])' "$sock" "$name"
    for _ in $(seq 100); do [ -f "/run/testbed/$lab/$name" ] && break; sleep 0.02; done
    cat "/run/testbed/$lab/$name" >> "$1"
  done
}

: > "$out/rows.txt"
for round in $(seq "$rounds"); do
  for build in old new; do
    bin=$old
    [ "$build" = new ] && bin=$new
    tb=$bin/testbed
    for flows in 1 8; do
      "$tb" up "$out/link.yaml" --prometheus off >/dev/null
      "$tb" exec --lab "$lab" a -- iperf3 -s >/dev/null 2>&1 &
      server_pid=$!
      for _ in $(seq 100); do
        "$tb" exec --lab "$lab" a -- ss -Hltn 'sport = :5201' | grep -q 5201 && break
        sleep 0.05
      done
      stats "$out/before.txt"
      c0=$(ticks_of_lines); p0=$(rx_packets)
      "$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -t "$secs" -P "$flows" -J > "$out/iperf.json"
      c1=$(ticks_of_lines); p1=$(rx_packets)
      stats "$out/after.txt"
      rtt=$("$tb" exec --lab "$lab" b -- ping -c 10 -i 0.1 -q 198.18.0.1 | awk -F/ '/rtt/ {print $5}')
      kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
      "$tb" down "$lab" >/dev/null
      python3 bench/delayline_cpu_row.py "$build" "$flows" "$out/iperf.json" "$c0" "$c1" "$p0" "$p1" \
        "$(getconf CLK_TCK)" "$out/before.txt" "$out/after.txt" "$rtt" | tee -a "$out/rows.txt"
    done
  done
done
python3 bench/delayline_cpu_row.py --summary "$out/rows.txt"
