#!/usr/bin/env bash
# What a shared clock does for a lab spread over hosts: two labs stand for two hosts'
# slices, each with one link whose rate steps every second for 10 s, the second brought up
# 2 s after the first as a second host's command would be. For each case it prints, per
# scheduled change, when each "host" applied it on the wall clock and the difference:
#   own-start  no --start-at: each timeline counts from its own start;
#   shared     the same --start-at on both;
#   offset     --start-at 50 ms later on the second: a host whose clock is 50 ms off.
#
# usage: sudo bench/shared-clock.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
out=bench/out
mkdir -p "$out"
cleanup() { for h in h1 h2; do "$tb" down "tbb-clk-$h" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT

profile() {
  cat <<YAML
lab: tbb-clk-$1
nodes: {a: {}, b: {}}
links:
  - endpoints: [a, b]
    b2a: {bandwidth: 100mbit}
    a2b:
      schedule:
        steps:
YAML
  for s in 0 1 2 3 4 5 6 7 8 9 10; do
    echo "          - {at: ${s}s, bandwidth: $((20 + 5 * s))mbit}"
  done
}
for h in h1 h2; do profile "$h" > "$out/clock-$h.yaml"; done

run_case() {  # NAME START_AT_H1 START_AT_H2 (empty: none)
  local name=$1 s1=$2 s2=$3
  "$tb" up "$out/clock-h1.yaml" --prometheus off ${s1:+--start-at "$s1"} >/dev/null
  sleep 2
  "$tb" up "$out/clock-h2.yaml" --prometheus off ${s2:+--start-at "$s2"} >/dev/null
  sleep 14
  /usr/bin/python3 - "$name" <<'PY'
import csv, statistics, sys
def applied(h):
    d = f"/run/testbed/tbb-clk-{h}"
    zero = float(open(d + "/timeline-start").read())
    return {round(float(r["scheduled_s"]), 3): (zero + float(r["applied_s"]), float(r["lag_ms"]))
            for r in csv.DictReader(open(d + "/timeline.csv")) if r["scheduled_s"] != "scheduled_s"}
a, b = applied("h1"), applied("h2")
diffs = [(b[t][0] - a[t][0]) * 1000 for t in sorted(a) if t in b]
lags = [v[1] for v in list(a.values()) + list(b.values())]
print(f"{sys.argv[1]:10} changes {len(diffs):2}  host2 - host1 ms: median {statistics.median(diffs):9.2f}"
      f"  min {min(diffs):9.2f}  max {max(diffs):9.2f}   timeline lag ms: max {max(lags):6.2f}")
PY
  cleanup
}

echo "case       each change applied on host 2 minus on host 1 (wall clock)"
run_case own-start "" ""
t=$(/usr/bin/python3 -c 'import time; print(f"{time.time() + 5:.3f}")')
run_case shared "$t" "$t"
t=$(/usr/bin/python3 -c 'import time; print(f"{time.time() + 5:.3f}")')
run_case offset "$t" "$(/usr/bin/python3 -c "print(f'{$t + 0.05:.3f}')")"
