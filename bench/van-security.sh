#!/usr/bin/env bash
# What CURVE costs the van (docs/multihost.md#security), side by side in one run: on a
# two-node lab with a 1 Gbit/s link, a train of 1 MiB chunks from a to b (`train --probe-only`,
# timed where they arrive) with the van's PLAIN (the run's secret) and with CURVE (keys new
# for the run, every byte encrypted), alternated ROUNDS times. For each: the stream's rate,
# and the CPU the whole run took (train and its agents, user + system, from the kernel's
# accounting of the children it waited for) per gigabit carried. The ratio CURVE/PLAIN of each
# round is printed beside the figures; rounds alternate so that a noisy spell hits both.
#
# usage: sudo bench/van-security.sh [ROUNDS] [RATE_MBIT]    (default 3 and 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=${1:-3}
rate=${2:-1000}
lab=tbb-vansec
out=bench/out
mkdir -p "$out"
cat > "$out/van-security.yaml" <<YAML
lab: $lab
nodes: {a: {}, b: {}}
links:
  - {endpoints: [a, b], bandwidth: ${rate}mbit, delay: 1ms}
YAML
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$tb" up "$out/van-security.yaml" --prometheus off >/dev/null
# About 10 s of chunks at the link's rate, as bench/transport.sh sends.
count=$(( rate * 10 / 8 + 3 ))
one() {  # MODE ROUND: prints "rate_mbit cpu_s bytes"
  local json="$out/van-security-$1-$2.json" t="$out/van-security-$1-$2.time"
  /usr/bin/time -f "%U %S" -o "$t" "$tb" train "$lab" --strategy ps --probe-only --probe-link a:b \
    --probe-count "$count" --van-security "$1" 2>/dev/null > "$json"
  python3 - "$json" "$t" "$count" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
user, system = map(float, open(sys.argv[2]).read().split()[-2:])
print(d["link_mbit"][0][1], user + system, int(sys.argv[3]) * (1 << 20))
PY
}
printf "%-6s %-6s %12s %10s %14s\n" round van "rate Mbit/s" "CPU s" "CPU s per Gbit"
for r in $(seq 1 "$rounds"); do
  declare -A per
  for mode in plain curve; do
    read -r mbit cpu bytes < <(one "$mode" "$r")
    per_gbit=$(python3 -c "print('%.3f' % ($cpu / ($bytes * 8 / 1e9)))")
    per[$mode]=$per_gbit
    printf "%-6s %-6s %12.1f %10.2f %14s\n" "$r" "$mode" "$mbit" "$cpu" "$per_gbit"
  done
  python3 -c "print('round %d: CPU per Gbit, CURVE / PLAIN = %.2f' % ($r, ${per[curve]} / ${per[plain]}))"
done
