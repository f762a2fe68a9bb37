#!/usr/bin/env bash
# Link fidelity, measured in one run: for each rate x one-way delay, iperf3 throughput
# against the configured rate (and against TCP's ideal goodput at that rate, 1448/1514),
# and ping's RTT against 2 x delay. Then a step test: the rate goes 155 -> 20 -> 155
# Mbit/s during one iperf3 run; it reports how long the measured rate takes to settle
# and how late each step was applied (the timeline's own log).
#
# usage: sudo bench/fidelity.sh [--quick]   (--quick: 2 rates x 2 delays)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
out=bench/out
mkdir -p "$out"
lab=tbb-fidelity
rates=(10 50 155 500 1000)
delays=(0 30 100)
if [ "${1:-}" = "--quick" ]; then rates=(10 1000); delays=(0 30); fi

server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  "$tb" down "$lab" >/dev/null 2>&1 || true
}
trap cleanup EXIT

profile() {  # rate_mbit delay_ms [extra yaml for a2b]
  cat > "$out/fidelity.yaml" <<YAML
lab: $lab
nodes: {a: {}, b: {}}
links:
  - endpoints: [a, b]
    bandwidth: ${1}mbit
    delay: ${2}ms
${3:-}
YAML
}

start_server() {
  "$tb" exec --lab "$lab" a -- iperf3 -s >/dev/null 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    "$tb" exec --lab "$lab" a -- ss -Hltn 'sport = :5201' | grep -q 5201 && return
    sleep 0.05
  done
  echo "iperf3 server did not start" >&2; exit 1
}

printf '%8s %8s %12s %10s %10s %10s %10s %9s\n' "rate" "delay" "iperf Mbit/s" "/config" "/goodput" "ping ms" "2xdelay" "rtt err"
for rate in "${rates[@]}"; do
  for delay in "${delays[@]}"; do
    profile "$rate" "$delay"
    "$tb" up "$out/fidelity.yaml" >/dev/null
    start_server
    # Long enough for slow start to fill a 1 Gbit/s x 200 ms pipe, which then is omitted.
    omit=2; secs=5
    [ "$delay" -ge 100 ] && { omit=5; secs=6; }
    mbit=$("$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -R -t "$secs" -O "$omit" -J |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e6)')
    rtt=$("$tb" exec --lab "$lab" b -- ping -c 10 -i 0.1 -q 198.18.0.1 | awk -F/ '/rtt/ {print $5}')
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
    "$tb" down "$lab" >/dev/null
    python3 - "$rate" "$delay" "$mbit" "$rtt" <<'PY'
import sys
rate, delay, mbit, rtt = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ideal = rate * 1448 / 1514
print("%8s %8s %12.1f %10.3f %10.3f %10.2f %10.0f %+9.2f" % (
    "%gmbit" % rate, "%gms" % delay, mbit, mbit / rate, mbit / ideal, rtt, 2 * delay, rtt - 2 * delay))
PY
  done
done

echo
echo "step test: 155 -> 20 -> 155 Mbit/s at 4 s and 8 s, 30 ms each way, iperf3 every 100 ms"
profile 155 30 "    a2b:
      schedule:
        steps:
          - {at: 0s, bandwidth: 155mbit}
          - {at: 4s, bandwidth: 20mbit}
          - {at: 8s, bandwidth: 155mbit}"
"$tb" up "$out/fidelity.yaml" >/dev/null
start_server
"$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -R -t 12 -i 0.1 -J > "$out/step.json"
cp "/run/testbed/$lab/timeline.csv" "$out/step-timeline.csv"
python3 - "$out/step.json" "$out/step-timeline.csv" <<'PY'
import csv, json, sys
iv = [(i["sum"]["start"], i["sum"]["bits_per_second"] / 1e6) for i in json.load(open(sys.argv[1]))["intervals"]]
def settle(old, new, after):
    """From the first interval that leaves 10% of the old rate, the time until five
    intervals in a row are within 10% of the new one."""
    start = next(t for t, m in iv if t >= after and abs(m - old * 0.956) > 0.1 * old * 0.956)
    run = 0
    for t, m in iv:
        if t < start:
            continue
        run = run + 1 if abs(m - new * 0.956) <= 0.1 * new * 0.956 else 0
        if run == 5:
            return t - 0.4 - start
    return float("nan")
print("  155 -> 20 settles in %.1f s" % settle(155, 20, 2.0))
print("  20 -> 155 settles in %.1f s" % settle(20, 155, 6.0))
lags = [float(r["lag_ms"]) for r in csv.DictReader(open(sys.argv[2]))]
print("  steps applied %d, lag after the scheduled time: max %.2f ms, mean %.2f ms" % (
    len(lags), max(lags), sum(lags) / len(lags)))
PY
