#!/usr/bin/env bash
# Gaia's comparisons (NSDI'17 Sec. 6) on this machine, every figure from a run here: for
# each WAN (gaia-vc, gaia-ss, gaia-11) Gaia and Baseline (BSP across the WAN, servers in
# every data center), and the LAN run of the same workers (gaia-lan-2, gaia-lan-11); then
# the significance threshold's sensitivity on V/C, Gaia on V/C run on to 300 clocks, and SSP
# inside the data centers against BSP with stragglers (Appendix B). Every
# Gaia run also counts the paper's Fig. 5: its workers' own updates against their
# parameters' values, at thresholds from 0.01% to 10%. The workload is the scenarios' in
# profiles/scenarios/gaia/: mf x2, two workers per data center, 400 ms compute per clock,
# time to the loss where the LAN (BSP) run converges. The second job is logreg (dense,
# convex, 65 parameters: a model whose clocks are bound by WAN latency, not bandwidth) on
# V/C, S/S, the 11 regions and their LANs. Prints the table with the paper's figures beside ours and writes
# bench/out/paper-gaia.jsonl. About 57 minutes.
#
# usage: sudo bench/paper-gaia.sh [--quick]   (--quick: V/C and S/S only, no sensitivity)
#        sudo [REPS=N] [APPEND=1] bench/paper-gaia.sh --readings [vc] [ss] [11]
#   --readings: both readings of t (--gaia-t pass and clock, each applied to Gaia's threshold
#   and to the job's step alike), on the 11 regions with the data-center groups and without;
#   Gaia, Baseline and the LAN, REPS times each (default 1), into
#   bench/out/paper-gaia-readings.jsonl (kept with APPEND=1), then the table of each row's
#   runs with their spread, and the bytes on the slowest links. V/C, S/S and 11 regions with
#   one repetition take about 60 minutes, S/S 30 of them.
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
out=bench/out
mkdir -p "$out"
quick=${1:-}
labs=(tbgaiavc tbgaiass tbgaia11 tbgaialan2 tbgaialan11)
cleanup() { for l in "${labs[@]}"; do "$tb" down "$l" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
jsonl=$out/paper-gaia.jsonl
[ "$quick" = --readings ] && jsonl=$out/paper-gaia-readings.jsonl
[ "${APPEND:-}" = 1 ] || : > "$jsonl"

# The job and its clocks: enough for single-process BSP to meet Sec. 5.3's convergence rule
# (mf x2 near clock 62, logreg near clock 140, both measured) with room for the rest.
job=(--model mf --scale 2 --iterations 80)
workload() {
  echo "${job[@]}" --workers-per-dc 2 --compute-ms 400 --target-rule converged --eval-every 0.2 \
    --servers all
}
run() {  # run PROFILE LABEL STRATEGY [OPTIONS...]
  local profile=$1 label=$2 strategy=$3 lab
  shift 3
  lab=$(sed -n 's/^lab: //p' "profiles/$profile.yaml")
  local json
  # shellcheck disable=SC2046  # the workload's words are options, split on purpose
  if ! json=$("$tb" train "$lab" --strategy "$strategy" $(workload) "$@" --json 2>"$out/last-error"); then
    echo "paper-gaia: $profile $label ($strategy $(workload) $*) failed: $(tail -1 "$out/last-error")" >&2
    return 0  # the table shows the run as missing; the other runs go on
  fi
  python3 -c '
import json, sys
d = json.load(sys.stdin)
keep = {k: d.get(k) for k in ("strategy", "consistency", "time_to_target_s", "final_loss",
        "target_loss", "target_source", "wan_bytes", "mean_iteration_s", "wall_s",
        "iterations", "step_t", "wan_bytes_per_direction")}
keep["profile"], keep["label"], keep["job"] = sys.argv[1], sys.argv[2], d.get("model")
h = d.get("health", {})
keep["health"] = {"healthy": h.get("healthy"), "problems": h.get("problems"),
                  "cpu_saturated_share": h.get("cpu_saturated_share"),
                  "release_lateness_p99_ms": (h.get("release_lateness_ms") or {}).get("p99"),
                  "min_backlogged_rate_ratio": h.get("min_backlogged_rate_ratio")}
g = d.get("gaia")
if g:
    keep["gaia"] = {k: v for k, v in g.items() if k != "per_data_center"}
print(json.dumps(keep))' "$profile" "$label" <<< "$json" >> "$jsonl"
  tail -1 "$jsonl" | cut -c1-200
}
with_lab() {  # with_lab PROFILE COMMANDS...: up, run, down
  local profile=$1
  shift
  "$tb" up "profiles/$profile.yaml" --prometheus off >/dev/null
  "$@"
  "$tb" down "$(sed -n 's/^lab: //p' "profiles/$profile.yaml")" >/dev/null
}

if [ "$quick" = --readings ]; then
  shift
  wans=("$@")
  [ ${#wans[@]} -gt 0 ] || wans=(vc ss 11)
  # The pass reading's single-process BSP meets Sec. 5.3's rule near clock 78 with 22
  # workers (the clock reading's near 62): 100 clocks leave room to reach it.
  clocks() { if [ "$1" = pass ]; then echo 100; else echo 80; fi; }
  # READINGS="pass" runs one reading only; GROUPS_11="a,b/c,d" adds a row on gaia-11 with
  # those groups by hand.
  read -r -a ts <<< "${READINGS:-pass clock}"
  readings() {  # readings PROFILE: Gaia (with and without groups on 11) and Baseline
    for t in "${ts[@]}"; do
      job=(--model mf --scale 2 --iterations "$(clocks "$t")")
      run "$1" "gaia t=$t" gaia --gaia-t "$t"
      if [ "$1" = gaia-11 ]; then
        run "$1" "gaia t=$t, no groups" gaia --gaia-t "$t" --gaia-groups off
        if [ -n "${GROUPS_11:-}" ]; then
          run "$1" "gaia t=$t, groups by hand" gaia --gaia-t "$t" --gaia-groups "$GROUPS_11"
        fi
      fi
      run "$1" "baseline t=$t" bsp --gaia-t "$t"
    done
  }
  lan_readings() {
    for t in "${ts[@]}"; do
      job=(--model mf --scale 2 --iterations "$(clocks "$t")")
      run "$1" "lan t=$t" bsp --gaia-t "$t"
    done
  }
  for _ in $(seq "${REPS:-1}"); do
    for w in "${wans[@]}"; do
      with_lab "gaia-$w" readings "gaia-$w"
      case $w in
        vc) with_lab gaia-lan-2 lan_readings gaia-lan-2 ;;
        11) with_lab gaia-lan-11 lan_readings gaia-lan-11 ;;
      esac
    done
  done
  python3 bench/paper_gaia_readings.py "$jsonl" | tee "$out/paper-gaia-readings.md"
  exit 0
fi

wan_pair() { run "$1" gaia gaia; run "$1" baseline bsp; }
with_lab gaia-vc wan_pair gaia-vc
with_lab gaia-ss wan_pair gaia-ss
with_lab gaia-lan-2 run gaia-lan-2 lan bsp
if [ "$quick" != --quick ]; then
  with_lab gaia-11 wan_pair gaia-11
  with_lab gaia-lan-11 run gaia-lan-11 lan bsp
  sensitivity() { for v in 0.5% 2% 5%; do run gaia-vc "gaia-$v" gaia --gaia-threshold "$v"; done; }
  with_lab gaia-vc sensitivity
  # Does the filter hold back more once the job has converged? Gaia on V/C for 300 clocks,
  # nearly four times the clocks single-process BSP takes to meet Sec. 5.3's rule.
  long_run() {
    job=(--model mf --scale 2 --iterations 300)
    run gaia-vc long gaia
    job=(--model mf --scale 2 --iterations 80)
  }
  with_lab gaia-vc long_run
  # Appendix B: SSP inside the data centers against BSP, for Gaia and for Baseline, with
  # stragglers inside them (each clock each worker 4x slower with probability 10%).
  ssp_inside() {
    job=(--model mf --scale 2 --iterations 80 --stragglers 10%:4)
    run gaia-vc "stragglers: Gaia, BSP inside" gaia
    run gaia-vc "stragglers: Gaia, SSP 3 inside" gaia --gaia-local ssp:3
    run gaia-vc "stragglers: Baseline, BSP" bsp
    run gaia-vc "stragglers: Baseline, SSP 3" ssp --staleness 3
    job=(--model mf --scale 2 --iterations 80)
  }
  with_lab gaia-vc ssp_inside
  job=(--model logreg --scale 1 --iterations 160)
  with_lab gaia-vc wan_pair gaia-vc
  with_lab gaia-ss wan_pair gaia-ss
  with_lab gaia-lan-2 run gaia-lan-2 lan bsp
  with_lab gaia-11 wan_pair gaia-11
  with_lab gaia-lan-11 run gaia-lan-11 lan bsp
fi
python3 bench/paper_gaia.py "$out/paper-gaia.jsonl" | tee "$out/paper-gaia.md"
