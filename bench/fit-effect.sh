#!/usr/bin/env bash
# What the fit's scaling changes (docs/fit.md#what-scaling-changes), side by side: each
# round brings Internet2 up as written (`--fit off`) and scaled by FACTOR (`--fit FACTOR`),
# and runs on each Gaia (its mf job, whose scale is its data's too) and MLfabric-A
# (ResNet-50's bytes, a dense model, to one server at chicago), 20 clocks each. Rounds
# alternate the two labs, so a drift of the shared host falls on both alike. It prints
# each run's mean clock, time to target, final loss, WAN bytes and health, and the scaled
# over written ratio of each figure's median.
#
# usage: sudo bench/fit-effect.sh [ROUNDS] [FACTOR]   (defaults: 2, 0.1)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=${1:-2}
factor=${2:-0.1}
out=bench/out/fit-effect
mkdir -p "$out"
rm -f "$out"/*.json
cleanup() { "$tb" down internet2 >/dev/null 2>&1 || true; }
trap cleanup EXIT

declare -A runs=(
  [gaia]="--strategy gaia --iterations 20"
  [mlfabric-a]="--strategy mlfabric-a --servers chicago --model resnet50 --iterations 20"
)
for round in $(seq "$rounds"); do
  for fit in off "$factor"; do
    "$tb" up internet2.yaml --fit "$fit" --prometheus off >/dev/null
    for name in "${!runs[@]}"; do
      read -r -a args <<< "${runs[$name]}"
      "$tb" train internet2 "${args[@]}" --json > "$out/$name-$fit-$round.json"
    done
    "$tb" down internet2 >/dev/null
  done
done
python3 - "$out" "$rounds" "$factor" <<'PY'
import glob, json, statistics, sys
out, rounds, factor = sys.argv[1], int(sys.argv[2]), sys.argv[3]
figures = ("mean_iteration_s", "time_to_target_s", "final_loss", "wan_bytes")
print("%-11s %-5s %5s %8s %9s %9s %12s  %s" % ("system", "fit", "round", "clock s", "target s",
                                             "final", "WAN bytes", "health"))
for name in ("gaia", "mlfabric-a"):
    medians = {}
    for fit in ("off", factor):
        rows = [json.load(open("%s/%s-%s-%d.json" % (out, name, fit, r)))
                for r in range(1, rounds + 1)]
        for r, j in enumerate(rows, 1):
            h = j["health"]
            print("%-11s %-5s %5d %8.3f %9s %9.4f %12d  %s" % (
                name, fit, r, j["mean_iteration_s"],
                "%.2f" % j["time_to_target_s"] if j.get("time_to_target_s") else "-",
                j["final_loss"], j["wan_bytes"],
                "healthy" if h["healthy"] else "UNHEALTHY: " + ", ".join(h["problems"])))
        medians[fit] = {f: statistics.median(j[f] for j in rows if j.get(f) is not None)
                        for f in figures if any(j.get(f) is not None for j in rows)}
    print("%-11s scaled x%s over written: %s" % (name, factor, ", ".join(
        "%s %.3f" % (f, medians[factor][f] / medians["off"][f])
        for f in figures if f in medians["off"] and f in medians[factor])))
PY
