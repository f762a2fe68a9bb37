#!/usr/bin/env bash
# Elastic DiLoCo on Internet2 (issue 77, docs/diloco.md "Elastic membership"): the same
# job with no change of membership, and with churn: a data center outside at the start
# (left before the run) joins at clock JOIN_AT (`testbed node join`), another is drained
# (`testbed node leave`) at clock LEAVE_AT and a third crashed (`testbed node crash`) at
# clock CRASH_AT; the runs alternate on one lab, ROUNDS rounds. Then BSP in the same lab,
# crashed the same way, which ends naming the node. Each run's final loss, outer steps, changes and their seconds
# lost, compute utilization and health; the table: bench/elastic_table.py.
#
# usage: sudo bench/elastic.sh [CLOCKS] [ROUNDS]   (default 200 2; about 5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
clocks=${1:-200}
rounds=${2:-2}
join_node=${JOIN_NODE:-chicago}
join_at=${JOIN_AT:-30}
leave_node=${LEAVE_NODE:-seattle}
crash_node=${CRASH_NODE:-houston}
leave_at=${LEAVE_AT:-50}
crash_at=${CRASH_AT:-100}
out=bench/out/elastic
mkdir -p "$out"
lab=tbb-elastic
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
sed "s/^lab: internet2$/lab: $lab/" profiles/internet2.yaml > "$out/lab.yaml"
"$tb" up "$out/lab.yaml" --prometheus off >/dev/null
: > "$out/runs.jsonl"
job=(--model logreg --iterations "$clocks" --compute-ms 20 --seed 1 --json)

at_clock() {  # LOG CLOCK: waits until the run has printed that clock
  until grep -q "\"iteration\":$2," "$1" 2>/dev/null; do sleep 0.05; done
}
run() {  # LABEL CHURN ARGS...: one train, its summary tagged; CHURN: yes or no
  local label=$1 churn=$2 log="$out/train.log"
  shift 2
  "$tb" train "$lab" "${job[@]}" "$@" > "$log" 2>&1 &
  local pid=$!
  if [ "$churn" = yes ]; then
    at_clock "$log" "$join_at"
    "$tb" node join "$lab" "$join_node" >/dev/null
    at_clock "$log" "$leave_at"
    "$tb" node leave "$lab" "$leave_node" >/dev/null
    at_clock "$log" "$crash_at"
    "$tb" node crash "$lab" "$crash_node" >/dev/null
  fi
  local rc=0
  wait "$pid" || rc=$?
  # The drained data center comes back for the next run (a node that left is outside a
  # run until it joins).
  [ "$churn" = yes ] && "$tb" node join "$lab" "$leave_node" >/dev/null
  python3 bench/summary_line.py "$log" bench_label="$label" bench_round="$round" \
    exit="$rc" >> "$out/runs.jsonl"
}
for round in $(seq "$rounds"); do
  run "diloco, fixed membership" no --strategy diloco
  run "diloco elastic, no change" no --strategy diloco --diloco-elastic on
  "$tb" node leave "$lab" "$join_node" >/dev/null  # outside until it joins mid-run
  run "diloco elastic, join + leave + crash" yes --strategy diloco --diloco-elastic on
done
round=1
"$tb" node leave "$lab" "$join_node" >/dev/null  # BSP ignores it: every node is in
run "bsp, crash" yes --strategy bsp
python3 bench/elastic_table.py "$out/runs.jsonl"
