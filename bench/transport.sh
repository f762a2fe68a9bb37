#!/usr/bin/env bash
# The agents' chunk stream against iperf3 over the same shaped link, side by side in one run.
# On a two-node lab a ps iteration sends the model up the link and the result back down.
# Chunks are pipelined (the first comes back down while later ones still go up), so each
# direction carries the model once per iteration: its stream rate is model bytes /
# iteration time, which still includes the pipeline's fill (one chunk and a round trip).
#
# usage: sudo bench/transport.sh [RATE_MBIT] [DELAY_MS]    (default 100 and 30)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rate=${1:-100}
delay=${2:-30}
lab=tbb-transport
out=bench/out
mkdir -p "$out"
cat > "$out/transport.yaml" <<YAML
lab: $lab
nodes: {a: {}, b: {}}
links:
  - {endpoints: [a, b], bandwidth: ${rate}mbit, delay: ${delay}ms}
YAML
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$tb" up "$out/transport.yaml" >/dev/null
"$tb" exec --lab "$lab" b -- iperf3 -s -1 >/dev/null 2>&1 &
server=$!
sleep 0.5
iperf=$("$tb" exec --lab "$lab" a -- iperf3 -c 198.18.0.2 -t 10 -O 2 -J |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e6)')
wait "$server" 2>/dev/null || true; server=""
# One way, as iperf3 runs: a node's train of 1 MiB chunks from a to b, timed where they
# arrive, its first two (TCP's slow start, as iperf3's -O omits) left out; about as many
# seconds as iperf3 runs.
count=$(( rate * 10 / 8 + 3 ))
"$tb" train "$lab" --strategy ps --probe-only --probe-link a:b --probe-count "$count" 2>/dev/null > "$out/stream.json"
# And both ways at once, as synchronization does: a ps iteration sends the model up and the
# result back down, pipelined by chunk, so each direction carries the model once per
# iteration (model bytes / iteration time, including the pipeline's fill).
"$tb" train "$lab" --strategy ps --iterations 5 --scale 0.25 --oracle --json 2>/dev/null > "$out/transport.json"
python3 - "$iperf" "$rate" "$out/stream.json" "$out/transport.json" <<'PY'
import json, sys
iperf, rate = float(sys.argv[1]), float(sys.argv[2])
stream = json.load(open(sys.argv[3]))["link_mbit"][0][1]
d = json.load(open(sys.argv[4]))
times = sorted(d["iteration_s"])[:-1] or d["iteration_s"]  # drop the slowest (first connects)
both = d["model_bytes"] * 8 / (sum(times) / len(times)) / 1e6
print("link %g Mbit/s: iperf3 %.1f | chunk stream one way %.1f (%.3f of iperf3) | "
      "synchronizing both ways %.1f per direction (%.3f)" % (rate, iperf, stream, stream / iperf, both, both / iperf))
PY
