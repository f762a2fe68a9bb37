#!/usr/bin/env bash
# Streaming DiLoCo against BSP, data-parallel all-reduce and DiLoCo (issue 76's proof,
# docs/streaming-diloco.md), in three parts, each on one lab with the systems alternating,
# ROUNDS rounds; every run's health beside its figures:
#   target  on each of PROFILES (Internet2, cloud-3): the logistic-regression job, every
#           node a data center, CLOCKS clocks of 20 ms compute; time to BSP's target loss
#           (the single-process run's after 3/4 of the clocks), WAN bytes, final loss;
#   bytes   on the same profiles: a dense model (ResNet-50's parameters x DENSE_SCALE, so a
#           pseudo-gradient outweighs the connections' own traffic), 40 clocks of 100 ms;
#           WAN bytes per full model's sync, the busiest link's peak rate (200 ms intervals
#           of its shaper's counter), compute utilization;
#   sweep   the shape of the paper's Fig. 4, measured: four data centers in a full mesh of
#           50 ms links, every link at each of RATES (Mbit/s); compute utilization (time
#           computing over wall time) for data-parallel training (RR-Sync), DiLoCo and
#           Streaming DiLoCo at each rate.
# Then once: every direction's bytes by the links' counters against `testbed capture`.
# Table: bench/streaming_diloco_table.py.
#
# usage: sudo bench/streaming-diloco.sh [CLOCKS] [ROUNDS]   (default 200 2; about 40 min)
#   PARTS="target bytes sweep capture" PROFILES="internet2 cloud-3" RATES="5 20 80 320"
#   SYSTEMS="LABEL|ARGS;LABEL|ARGS": these systems instead of the default list (for example
#   the overlap: SYSTEMS='tau=0|--strategy streaming-diloco --streaming-overlap 0;...')
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
clocks=${1:-200}
rounds=${2:-2}
parts=${PARTS:-target bytes sweep capture}
profiles=${PROFILES:-internet2 cloud-3}
rates=${RATES:-5 20 80 320}
dense_scale=${DENSE_SCALE:-0.01}
out=${OUT:-bench/out/streaming-diloco}
mkdir -p "$out"
lab=""
cleanup() { [ -n "$lab" ] && "$tb" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT
: > "$out/runs.jsonl"

up() {  # PROFILE_FILE LAB: bring up a copy of the profile under the bench's own lab name
  lab=$2
  sed "s/^lab: .*$/lab: $lab/" "$1" > "$out/$lab.yaml"
  "$tb" up "$out/$lab.yaml" --prometheus off >/dev/null
}
down() { "$tb" down "$lab" >/dev/null; lab=""; }
run() {  # PART PLACE LABEL ARGS...: one train, its summary as one line, tagged
  local part=$1 place=$2 label=$3
  shift 3
  "$tb" train "$lab" "$@" --seed 1 --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); d.update(bench_part=sys.argv[1], bench_place=sys.argv[2], bench_label=sys.argv[3], bench_round=int(sys.argv[4])); print(json.dumps(d))' \
      "$part" "$place" "$label" "$round" >> "$out/runs.jsonl" ||
    echo "{\"bench_part\": \"$part\", \"bench_place\": \"$place\", \"bench_label\": \"$label\", \"bench_round\": $round, \"failed\": true}" >> "$out/runs.jsonl"
}
# The systems compared, each as its arguments (DiLoCo's and Streaming DiLoCo's H = 10, the
# default; Streaming DiLoCo with the paper's overlap of one step and mixing of 0.5).
systems() {  # PART: "LABEL|ARGS" lines
  if [ -n "${SYSTEMS:-}" ]; then
    tr ';' '\n' <<<"$SYSTEMS"
    return
  fi
  local s="--strategy streaming-diloco --diloco-h 10"
  [ "$1" = target ] && echo "bsp|--strategy bsp"
  echo "dp (rr-sync)|--strategy rr-sync"
  echo "diloco|--strategy diloco --diloco-h 10"
  echo "streaming P=2 fp32|$s --streaming-fragments 2 --streaming-wire fp32"
  echo "streaming P=5 fp32|$s --streaming-fragments 5 --streaming-wire fp32"
  echo "streaming P=5 fp4|$s --streaming-fragments 5 --streaming-wire fp4"
}
each_system() {  # PART PLACE COMMON...
  local part=$1 place=$2 label args
  shift 2
  while IFS='|' read -r label args; do
    read -r -a a <<<"$args"
    run "$part" "$place" "$label" "$@" "${a[@]}"
  done < <(systems "$part")
}

for round in $(seq "$rounds"); do
  for p in $profiles; do
    if [[ " $parts " == *" target "* ]] || [[ " $parts " == *" bytes "* ]]; then
      up "profiles/$p.yaml" "tbb-sdl"
      [[ " $parts " == *" target "* ]] &&
        each_system target "$p" --model logreg --iterations "$clocks" --compute-ms 20
      [[ " $parts " == *" bytes "* ]] &&
        each_system bytes "$p" --model resnet50 --scale "$dense_scale" --iterations 40 --compute-ms 100
      down
    fi
  done
  if [[ " $parts " == *" sweep "* ]]; then
    for rate in $rates; do
      python3 - "$rate" > "$out/mesh.yaml" <<'PY'
import sys
rate = sys.argv[1]
names = ["dc1", "dc2", "dc3", "dc4"]
print("lab: tbb-sdlmesh")
print("nodes: {%s}" % ", ".join("%s: {}" % n for n in names))
print("links:")
for i, a in enumerate(names):
    for b in names[i + 1:]:
        print("  - {endpoints: [%s, %s], bandwidth: %smbit, delay: 25ms}" % (a, b, rate))
PY
      up "$out/mesh.yaml" "tbb-sdlmesh"
      each_system sweep "${rate}mbit" --model resnet50 --scale "$dense_scale" --iterations 40 --compute-ms 100
      down
    done
  fi
done

if [[ " $parts " == *" capture "* ]]; then
  # One Streaming DiLoCo run on Internet2 while every direction is captured: their bytes by
  # the links' counters (the summary's wan_bytes_per_direction) against the capture's.
  round=1
  up profiles/internet2.yaml "tbb-sdl"
  "$tb" capture "$lab" --all --duration 120s --snaplen 128 \
    --out "$out/capture.pcapng" > "$out/capture.txt" 2>&1 &
  capture_pid=$!
  sleep 2
  run capture internet2 "streaming P=5 fp4" --model resnet50 --scale "$dense_scale" \
    --iterations 40 --compute-ms 100 --strategy streaming-diloco --streaming-fragments 5 \
    --streaming-wire fp4
  kill -INT "$capture_pid" 2>/dev/null || true
  wait "$capture_pid" || true
  tshark -r "$out/capture.pcapng" -T fields -e frame.interface_name -e frame.len 2>/dev/null |
    awk -F'\t' '{n[$1] += $2} END {for (d in n) print d "\t" n[d]}' > "$out/capture-bytes.txt"
  down
fi
python3 bench/streaming_diloco_table.py "$out"
