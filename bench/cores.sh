#!/usr/bin/env bash
# The same comparison on one CPU as on all: NetStorm against the PS star on Internet2 (the
# profile's workload, ITERATIONS each), with the whole lab confined to CPU 0 (`taskset -c
# 0` on `up` and on `train`: the delay lines inherit up's CPUs, the agents train's) and
# on every CPU of the machine. Rounds alternate the two, so a drift of the shared host
# falls on both alike. For each it prints the mean seconds per iteration of each strategy,
# their ratio, and each run's health verdict with the CPUs it judged. The claim it checks:
# both healthy, and the ratios within 10% of each other.
#
# FIT=scale|refuse|off (default off) brings each lab up with `--fit` (docs/fit.md): fitted
# to the budget of the CPUs it is confined to, so one CPU gets half the two CPUs' factor.
#
# TRAIN_ARGS are added to each `train` (another workload: "--model mf --iterations 50"),
# and METRIC names the summary's figure compared (default mean_iteration_s; for the
# consistency models time_to_target_s, with a --target-loss in TRAIN_ARGS).
#
# usage: sudo [FIT=scale] bench/cores.sh [ROUNDS] [ITERATIONS] [FAST:SLOW]
#        (defaults: 2, 4, netstorm:ps)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=${1:-2}
iterations=${2:-4}
pair=${3:-netstorm:ps}
fit=${FIT:-off}
metric=${METRIC:-mean_iteration_s}
read -r -a train_args <<< "${TRAIN_ARGS:-}"
fast=${pair%%:*}
slow=${pair##*:}
out=bench/out/cores
mkdir -p "$out"
rm -f "$out"/*.json
all=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
cleanup() { "$tb" down internet2 >/dev/null 2>&1 || true; }
trap cleanup EXIT

for round in $(seq "$rounds"); do
  for cpus in 0 "$all"; do
    name=$([ "$cpus" = 0 ] && echo one || echo all)
    taskset -c "$cpus" "$tb" up internet2.yaml --fit "$fit" >/dev/null
    for s in "$fast" "$slow"; do
      taskset -c "$cpus" "$tb" train internet2 --strategy "$s" --iterations "$iterations" --json \
        "${train_args[@]}" \
        > "$out/$name-$round-$s.json"
    done
    "$tb" down internet2 >/dev/null
  done
done
python3 - "$out" "$rounds" "$fast" "$slow" "$metric" <<'PY'
import json, statistics, sys
out, rounds, fast, slow, metric = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def run(name, r, s):
    return json.load(open("%s/%s-%d-%s.json" % (out, name, r, s)))
ratios = {}
print("%s of each run\n" % metric)
print("%-4s %5s %6s %10s %10s %7s  %s" % ("cpus", "round", "factor", fast, slow,
                                         "ratio", "health"))
for name in ("one", "all"):
    ratios[name] = []
    for r in range(1, rounds + 1):
        a, b = run(name, r, fast), run(name, r, slow)
        ratio = b[metric] / a[metric]
        ratios[name].append(ratio)
        verdict = "; ".join("%s %s (%s)" % (s, "healthy" if j["health"]["healthy"] else
                                            "UNHEALTHY: " + ", ".join(j["health"]["problems"]),
                                            j["health"].get("cpu_scope", "?"))
                            for s, j in ((fast, a), (slow, b)))
        factor = a.get("fit", {}).get("factor", 1)
        print("%-4s %5d %6g %10.2f %10.2f %7.2f  %s" % (name, r, factor, a[metric], b[metric],
                                                       ratio, verdict))
one, every = statistics.mean(ratios["one"]), statistics.mean(ratios["all"])
print("%s/%s: one CPU %.2fx, all CPUs %.2fx; one over all %.3f (%s: within 10%%)" % (
    slow, fast, one, every, one / every, "holds" if abs(one / every - 1) <= 0.10 else "FAILS"))
PY
