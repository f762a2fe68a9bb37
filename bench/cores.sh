#!/usr/bin/env bash
# The same comparison on one CPU as on all: NetStorm against the PS star on Internet2 (the
# profile's workload, ITERATIONS each), with the whole lab confined to CPU 0 (`taskset -c
# 0` on `up` and on `train`: the delay lines inherit up's CPUs, the agents train's) and
# on every CPU of the machine. Rounds alternate the two, so a drift of the shared host
# falls on both alike. For each it prints the mean seconds per iteration of each strategy,
# their ratio, and each run's health verdict with the CPUs it judged. The claim it checks:
# both healthy, and the ratios within 10% of each other.
#
# usage: sudo bench/cores.sh [ROUNDS] [ITERATIONS] [FAST:SLOW]   (defaults: 2, 4, netstorm:ps)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
rounds=${1:-2}
iterations=${2:-4}
pair=${3:-netstorm:ps}
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
    taskset -c "$cpus" "$tb" up internet2.yaml >/dev/null
    for s in "$fast" "$slow"; do
      taskset -c "$cpus" "$tb" train internet2 --strategy "$s" --iterations "$iterations" --json \
        > "$out/$name-$round-$s.json"
    done
    "$tb" down internet2 >/dev/null
  done
done
python3 - "$out" "$rounds" "$fast" "$slow" <<'PY'
import json, statistics, sys
out, rounds, fast, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def run(name, r, s):
    return json.load(open("%s/%s-%d-%s.json" % (out, name, r, s)))
ratios = {}
print("%-4s %5s %10s %10s %7s  %s" % ("cpus", "round", fast + " s", slow + " s", "ratio", "health"))
for name in ("one", "all"):
    ratios[name] = []
    for r in range(1, rounds + 1):
        a, b = run(name, r, fast), run(name, r, slow)
        ratio = b["mean_iteration_s"] / a["mean_iteration_s"]
        ratios[name].append(ratio)
        verdict = "; ".join("%s %s (%s)" % (s, "healthy" if j["health"]["healthy"] else
                                            "UNHEALTHY: " + ", ".join(j["health"]["problems"]),
                                            j["health"].get("cpu_scope", "?"))
                            for s, j in ((fast, a), (slow, b)))
        print("%-4s %5d %10.2f %10.2f %7.2f  %s" % (name, r, a["mean_iteration_s"],
                                                   b["mean_iteration_s"], ratio, verdict))
one, every = statistics.mean(ratios["one"]), statistics.mean(ratios["all"])
print("%s/%s: one CPU %.2fx, all CPUs %.2fx; one over all %.3f (%s: within 10%%)" % (
    slow, fast, one, every, one / every, "holds" if abs(one / every - 1) <= 0.10 else "FAILS"))
PY
