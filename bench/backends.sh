#!/usr/bin/env bash
# netem against the userspace delay line, side by side in one run of one kernel (one with
# sch_netem: run it under scripts/kernel-test.sh on a machine whose kernel lacks netem):
# the two backends alternate, case by case and round by round, on the same two-node link.
#   rate      iperf3 (TCP) through 50 Mbit/s, 30 ms each way: achieved / configured
#   rtt       ping at 10 ms intervals, 30 ms each way, idle and under that iperf3 load:
#             the RTT's error against 60 ms (median and p99)
#   jitter    30 ms +- 10 ms each way: the spread of ping RTTs (stdev; netem's and the
#             delay line's jitter are both uniform within +- jitter in each direction)
#   loss      2% each way: 4000 pings' loss against 1 - 0.98^2 = 3.96%
#   reorder   iperf3 UDP at 20 Mbit/s through 30 ms +- 5 ms: out-of-order datagrams as the
#             receiver counts them, with the profile's default (FIFO order, reorder: false)
#             and with reorder: true (FIFO,ALLOWED in the table)
#   step      50 -> 10 Mbit/s by `link set` during iperf3: time to settle within 10%
# usage: sudo bench/backends.sh [--rounds N]       (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=2
[ "${1:-}" = "--rounds" ] && rounds=$2
out=$(mktemp -d /tmp/tbb-backends.XXXXXX)
lab=tbb-backends
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  "$tb" down "$lab" >/dev/null 2>&1 || true
  rm -rf "$out"
}
trap cleanup EXIT

up() {  # backend, then link keys
  printf 'lab: %s\nbackend: %s\nnodes: {a: {}, b: {}}\nlinks:\n  - {endpoints: [a, b], %s}\n' \
    "$lab" "$1" "$2" > "$out/p.yaml"
  "$tb" up "$out/p.yaml" --prometheus off >/dev/null
}
down() { "$tb" down "$lab" >/dev/null; }
serve() {
  "$tb" exec --lab "$lab" a -- iperf3 -s >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 200); do
    "$tb" exec --lab "$lab" a -- ss -Hltn 'sport = :5201' | grep -q 5201 && return
    sleep 0.05
  done
  echo "iperf3 server did not start" >&2; exit 1
}
unserve() { kill "$server"; wait "$server" 2>/dev/null || true; server=""; }
pings() {  # count interval -> one RTT (ms) per line
  "$tb" exec --lab "$lab" b -- ping -n -c "$1" -i "$2" 198.18.0.1 | sed -n 's/.*time=\([0-9.]*\) ms/\1/p'
}
stats() {  # stdin: numbers -> "median p99 stdev n"
  python3 -c '
import statistics, sys
x = sorted(float(v) for v in sys.stdin.read().split())
print("%.2f %.2f %.2f %d" % (statistics.median(x), x[min(len(x) - 1, int(0.99 * len(x)))],
                            statistics.pstdev(x), len(x)))'
}

results=$out/results.txt
: > "$results"
for round in $(seq "$rounds"); do
  for backend in netem delayline; do
    # rate, and RTT idle and under load
    up "$backend" "bandwidth: 50mbit, delay: 30ms"
    serve
    idle=$(pings 200 0.01 | awk '{print $1 - 60}' | stats)
    "$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -R -t 8 -O 2 -J > "$out/rate.json" &
    iperf=$!
    sleep 3
    loaded=$(pings 300 0.01 | awk '{print $1 - 60}' | stats)
    wait "$iperf"
    mbit=$(python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' "$out/rate.json")
    # step: 50 -> 10 Mbit/s one second into an iperf3 run, intervals of 100 ms
    "$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -R -t 6 -i 0.1 -J > "$out/step.json" &
    iperf=$!
    sleep 2
    "$tb" link set "$lab" a b --dir a2b --rate 10mbit >/dev/null
    wait "$iperf"
    settle=$(python3 - "$out/step.json" <<'PY'
import json, sys
iv = [(i["sum"]["start"], i["sum"]["bits_per_second"] / 1e6) for i in json.load(open(sys.argv[1]))["intervals"]]
# From the first interval under 90% of 50 Mbit/s (after the warm-up), the time until five
# intervals in a row are within 10% of 10 Mbit/s of goodput (x 1448/1514).
new = 10 * 0.956
start = next((t for t, m in iv if t > 1.0 and m < 0.9 * 50 * 0.956), None)
run, done = 0, None
for t, m in iv:
    if start is None or t < start:
        continue
    run = run + 1 if abs(m - new) <= 0.1 * new else 0
    if run == 5:
        done = t - 0.4 - start
        break
print("%.1f" % done if done is not None else "nan")
PY
)
    unserve
    down
    # jitter
    up "$backend" "bandwidth: 100mbit, delay: 30ms, jitter: 10ms"
    jitter=$(pings 300 0.01 | stats)
    down
    # loss
    up "$backend" "bandwidth: 100mbit, delay: 1ms, loss: 2%"
    sent=4000
    got=$(pings "$sent" 0.002 | wc -l)
    loss=$(python3 -c "print('%.2f' % (100 * (1 - $got / $sent)))")
    down
    # reorder: UDP, where TCP would hide it, counted by the receiver (-R: the client), with
    # the profile's default (FIFO order kept) and with reorder allowed
    reorder=""
    for allow in false true; do
      up "$backend" "bandwidth: 100mbit, delay: 30ms, jitter: 5ms, reorder: $allow"
      serve
      "$tb" exec --lab "$lab" b -- iperf3 -c 198.18.0.1 -u -b 20M -t 5 -R -J > "$out/udp.json" || true
      reorder="$reorder$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["end"]["streams"][0]["udp"]
print("%d/%d" % (s.get("out_of_order", 0), s.get("packets", 0)))' "$out/udp.json"),"
      unserve
      down
    done
    reorder=${reorder%,}
    echo "$round $backend $mbit $idle $loaded $settle $jitter $loss $reorder" >> "$results"
    echo "round $round $backend: rate $mbit Mbit/s, rtt err idle [$idle] loaded [$loaded], step ${settle}s, jitter [$jitter], loss ${loss}%, reorder $reorder" >&2
  done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
# round backend mbit | idle: med p99 sd n | loaded: med p99 sd n | settle | jitter: med p99 sd n | loss | reorder
by = {}
for r in rows:
    by.setdefault(r[1], []).append(r)
def med(b, i):
    vals = [float(r[i]) for r in by[b] if r[i] != "nan"]
    return statistics.median(vals) if vals else float("nan")
print("backend     rate/50Mbit  rtt err idle (med/p99)  rtt err loaded (med/p99)  step settle  jitter sd (ideal 8.2)  loss (ideal 3.96%)  UDP reordered (fifo,allowed)")
for b in ("netem", "delayline"):
    if b not in by:
        continue
    print("%-10s  %11.3f  %+8.2f / %+6.2f ms     %+8.2f / %+6.2f ms      %6.1f s     %6.2f ms            %6.2f%%            %s" % (
        b, med(b, 2) / 50, med(b, 3), med(b, 4), med(b, 7), med(b, 8), med(b, 11),
        med(b, 14), med(b, 16), " ".join(r[17] for r in by[b])))
print("(medians over %d rounds; each round ran netem, then the delay line)" % len(by.get("netem", [])))
PY
