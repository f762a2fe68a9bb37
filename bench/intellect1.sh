#!/usr/bin/env bash
# INTELLECT-1 in a box (issue 77, docs/intellect1.md): elastic DiLoCo over 14 data centers
# from measured cloud regions, on one continent (North America) and across three, with
# and without churn, int8 and fp32 pseudo-gradients. Every run on a fresh lab (churn is
# timed from `up`, so each run sees the same churn), one after the other, ROUNDS rounds.
# Each run's compute utilization (over the wall time, and over each data center's time in),
# provider sessions, changes, final loss, WAN bytes and health; the table:
# bench/intellect1_table.py. Profiles: scripts/intellect1-profiles.sh.
#
# usage: sudo bench/intellect1.sh [ROUNDS] [OUTER_STEPS]   (default 1 4; about 40 minutes)
#   CONFIGS="na:off:int8 global:on:fp32 ..." to run only some (continent:churn:wire[:system]);
#   system is diloco (the default) or streaming (Streaming DiLoCo; elastic too, from the
#   churned profiles' diloco-elastic)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=${1:-1}
outer=${2:-4}
configs=${CONFIGS:-"na:off:int8 na:off:fp32 na:on:int8 na:on:fp32 global:off:int8 global:off:fp32 global:on:int8 global:on:fp32 na:off:int8:streaming global:off:int8:streaming na:on:int8:streaming global:on:int8:streaming"}
out=bench/out/intellect1
mkdir -p "$out"
lab=
cleanup() { [ -z "$lab" ] || "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
: > "$out/runs.jsonl"

run() {  # CONTINENT CHURN WIRE ROUND SYSTEM
  local continent=$1 churn=$2 wire=$3 round=$4 system=$5 profile log="$out/train.log" rc=0
  local args=(--diloco-wire "$wire")
  # Streaming DiLoCo: the profile's job and H, its defaults (P = 2 fragments, tau = 1).
  [ "$system" = streaming ] && args=(--strategy streaming-diloco --streaming-wire "$wire")
  profile=profiles/intellect1-$continent-14.yaml
  [ "$churn" = on ] && profile=profiles/intellect1-$continent-14-churn.yaml
  lab=$(sed -n 's/^lab: //p' "$profile")
  "$tb" up "$profile" --prometheus off >/dev/null
  # The profile's workload (INTELLECT-1's job, scaled), the wire and length as asked.
  "$tb" train "$lab" "${args[@]}" --iterations $((outer * 100)) --json > "$log" 2>&1 || rc=$?
  "$tb" down "$lab" >/dev/null
  lab=
  python3 bench/summary_line.py "$log" bench_continent="$continent" bench_churn="$churn" \
    bench_wire="$wire" bench_round="$round" bench_system="$system" exit="$rc" \
    >> "$out/runs.jsonl"
}
for round in $(seq "$rounds"); do
  for c in $configs; do
    IFS=: read -r continent churn wire system <<< "$c"
    system=${system:-diloco}
    echo "intellect1: round $round, $continent, churn $churn, $wire, $system" >&2
    run "$continent" "$churn" "$wire" "$round" "$system"
  done
done
python3 bench/intellect1_table.py "$out/runs.jsonl"
