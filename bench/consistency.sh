#!/usr/bin/env bash
# The parameter server's consistency models side by side on Internet2 as shipped, under
# stragglers (each worker computes 100-300 ms per iteration, drawn from the seed): BSP,
# SSP with s = 2 and s = 5, and async, on the jobs mf and logreg. Every strategy aims at
# the same target loss (the single-process BSP run's after 3/4 of the iterations). Prints
# time to the target, final loss, WAN bytes and iteration rate, each as a ratio to BSP,
# all measured in one run.
#
# usage: sudo bench/consistency.sh [ITERATIONS] [REPETITIONS]   (default 40, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
iterations=${1:-40}
reps=${2:-1}
out=bench/out
mkdir -p "$out"
cleanup() { "$tb" down tbb-consistency >/dev/null 2>&1 || true; }
trap cleanup EXIT

sed 's/^lab: internet2$/lab: tbb-consistency/' profiles/internet2.yaml > "$out/consistency.yaml"
"$tb" up "$out/consistency.yaml" --prometheus off >/dev/null
: > "$out/consistency.jsonl"
for job in mf logreg; do
  for rep in $(seq 1 "$reps"); do
    for variant in bsp ssp:2 ssp:5 async; do
      strategy=${variant%%:*}
      args=(--strategy "$strategy" --model "$job" --iterations "$iterations" --compute-ms 100-300
            --seed "$rep" --json)
      [ "$strategy" = ssp ] && args+=(--staleness "${variant#*:}")
      "$tb" train tbb-consistency "${args[@]}" 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); d["variant"]=sys.argv[1]; d["job_name"]=sys.argv[2]; print(json.dumps({k: d[k] for k in ("variant","job_name","seed","time_to_target_s","final_loss","target_loss","wan_bytes","mean_iteration_s","max_staleness","wall_s")}))' "$variant" "$job" \
        >> "$out/consistency.jsonl"
    done
  done
done

python3 - "$out/consistency.jsonl" <<'PY'
import json, sys
from collections import defaultdict
runs = [json.loads(l) for l in open(sys.argv[1])]
by = defaultdict(list)
for r in runs:
    by[(r["job_name"], r["variant"])].append(r)
def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None
for job in ("mf", "logreg"):
    base = by[(job, "bsp")]
    print("%s: target loss %.4f (single-process BSP after 3/4 of the iterations), %d repetition(s)"
          % (job, base[0]["target_loss"], len(base)))
    print("%-7s %10s %8s %11s %8s %10s %8s %9s %8s %10s" % ("variant", "to target", "vs bsp", "final loss",
          "vs bsp", "WAN MB", "vs bsp", "it/s", "vs bsp", "staleness"))
    b_t = mean([r["time_to_target_s"] for r in base])
    b_l = mean([r["final_loss"] for r in base])
    b_w = mean([r["wan_bytes"] for r in base])
    b_r = mean([1 / r["mean_iteration_s"] for r in base])
    for variant in ("bsp", "ssp:2", "ssp:5", "async"):
        rs = by[(job, variant)]
        reached = all(r["time_to_target_s"] is not None for r in rs)
        t = mean([r["time_to_target_s"] for r in rs]) if reached else None
        l = mean([r["final_loss"] for r in rs])
        w = mean([r["wan_bytes"] for r in rs])
        rate = mean([1 / r["mean_iteration_s"] for r in rs])
        print("%-7s %10s %8s %11.4f %8.3f %10.1f %8.2f %9.2f %8.2f %10d" % (
            variant, "%.1f s" % t if t else "-", "%.2f" % (t / b_t) if t and b_t else "-", l, l / b_l,
            w / 1e6, w / b_w, rate, rate / b_r, max(r["max_staleness"] for r in rs)))
    print()
PY
