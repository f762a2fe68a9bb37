#!/usr/bin/env bash
# DiLoCo against BSP, SSP and NetStorm on Internet2, the same job for all (issue 50's
# proof, docs/diloco.md): the logistic-regression job, each of Internet2's nine nodes a
# data center with one worker and COMPUTE ms of compute a clock, ITERATIONS clocks, on one
# lab, the systems alternating, ROUNDS rounds. Time to the target loss (the single-process
# BSP run's after 3/4 of the clocks, the parameter servers' default), WAN bytes and the
# run's health for each, and DiLoCo at several H to find where it stops paying; beside
# them RR-Sync (the same ring every clock), DiLoCo without its outer momentum (FedAvg: H
# alone) and with the paper's AdamW inner optimizer. Table: bench/diloco_table.py.
#
# usage: sudo bench/diloco.sh [ITERATIONS] [COMPUTE_MS] [ROUNDS]   (default 200 20 2)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
iterations=${1:-200}
compute=${2:-20}
rounds=${3:-2}
hs=${DILOCO_HS:-1 2 5 10 20 50}
# The paper's inner optimizer, AdamW, at H = 10: its learning rate (4e-4, a language
# model's) and 0.04, a hundred times it, for a job of 65 weights; empty for none.
adamw_lrs=${DILOCO_ADAMW_LRS:-0.0004 0.04}
fedavg_hs=${DILOCO_FEDAVG_HS:-10 50}
out=bench/out/diloco
mkdir -p "$out"
lab=tbb-diloco
cleanup() { "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT

sed "s/^lab: internet2$/lab: $lab/" profiles/internet2.yaml > "$out/lab.yaml"
"$tb" up "$out/lab.yaml" --prometheus off >/dev/null
common=(--model logreg --iterations "$iterations" --compute-ms "$compute" --seed 1 --json)
: > "$out/runs.jsonl"
run() {  # LABEL ARGS...: one train, its summary as one line tagged with LABEL and the round
  local label=$1
  shift
  "$tb" train "$lab" "${common[@]}" "$@" 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); d["bench_label"]=sys.argv[1]; d["bench_round"]=int(sys.argv[2]); print(json.dumps(d))' \
      "$label" "$round" >> "$out/runs.jsonl"
}
for round in $(seq 1 "$rounds"); do
  run bsp --strategy bsp
  run ssp --strategy ssp
  run netstorm --strategy netstorm
  # RR-Sync: BSP's arithmetic over the same ring, every clock (DiLoCo at H = 1 with an
  # outer rate of 1 and no momentum is exactly this): the ring's cost without DiLoCo.
  run rr-sync --strategy rr-sync
  for h in $hs; do run "diloco H=$h" --strategy diloco --diloco-h "$h"; done
  # The outer step without its momentum (rate 1, momentum 0: FedAvg's average of the
  # data centers' models): what H alone does, apart from Nesterov's acceleration.
  for h in $fedavg_hs; do
    run "fedavg H=$h" --strategy diloco --diloco-h "$h" --diloco-outer-lr 1 --diloco-momentum 0
  done
  for lr in $adamw_lrs; do
    run "diloco H=10 adamw lr=$lr" --strategy diloco --diloco-h 10 --diloco-inner adamw \
      --diloco-inner-lr "$lr"
  done
done
python3 bench/diloco_table.py "$out/runs.jsonl"
