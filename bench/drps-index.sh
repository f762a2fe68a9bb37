#!/usr/bin/env bash
# DRPS's parameter index (Sec. 4) measured side by side in one run: sparse-lr x1 (2^20
# keys, 4 MiB of floats) trained by BSP for a few clocks on profiles/tiny/line4.yaml, every
# shard's values in memory, then on disk (1 MiB of memory per store) without the index,
# with it (the paper's k = 50, keys in 90% and in 50% of the sampled batches), and with
# one pair merged per round (k = 1, the algorithm the paper improves on). Prints each
# variant's block reads, data blocks read from the files, Alg. 1's modelled cost and
# build time, and wall time, as ratios to the unindexed disk run; and Alg. 1's build time
# with k = 1 over k = 50 (paper: 30x faster on average). Results in bench/out/drps-index.jsonl.
#
# usage: sudo bench/drps-index.sh [CLOCKS] [REPETITIONS]   (default 6, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
clocks=${1:-6}
reps=${2:-1}
out=bench/out
mkdir -p "$out"
cleanup() { "$tb" down tbb-drps >/dev/null 2>&1 || true; }
trap cleanup EXIT

sed 's/^lab: .*$/lab: tbb-drps/' profiles/tiny/line4.yaml > "$out/drps.yaml"
"$tb" up "$out/drps.yaml" --prometheus off >/dev/null
: > "$out/drps-index.jsonl"
for rep in $(seq 1 "$reps"); do
  for variant in memory disk index:50:0.9 index:1:0.9 index:50:0.5; do
    args=(--strategy bsp --model sparse-lr --scale 1 --iterations "$clocks" --seed "$rep" --json)
    case "$variant" in
      memory) ;;
      disk) args+=(--store disk) ;;
      index:*) IFS=: read -r _ k prune <<< "$variant"
               args+=(--store disk --index on --index-k "$k" --index-prune "$prune") ;;
    esac
    "$tb" train tbb-drps "${args[@]}" 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"variant": sys.argv[1], "seed": d["seed"], "wall_s": d["wall_s"], "final_loss": d["final_loss"], "store": d["store"], "healthy": d["health"]["healthy"]}))' "$variant" \
      >> "$out/drps-index.jsonl"
  done
done

python3 - "$out/drps-index.jsonl" <<'PY'
import json, sys
from collections import defaultdict
by = defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    by[r["variant"]].append(r)
def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None
def st(v, key):
    return mean([r["store"].get(key) for r in by[v]])
def ix(v, key):
    return mean([r["store"]["index"][key] for r in by[v]]) if isinstance(by[v][0]["store"].get("index"), dict) else None
base_reads, base_disk, base_wall = st("disk", "block_reads"), st("disk", "disk_reads"), mean([r["wall_s"] for r in by["disk"]])
print("sparse-lr x1, BSP, %d repetition(s); ratios to the unindexed disk run" % len(by["disk"]))
print("%-14s %12s %7s %11s %7s %10s %7s %9s %8s %7s %8s" % ("variant", "block reads", "ratio", "disk reads", "ratio",
      "model cost", "ratio", "build s", "wall s", "ratio", "healthy"))
for v in ("memory", "disk", "index:50:0.9", "index:1:0.9", "index:50:0.5"):
    rs = by[v]
    wall = mean([r["wall_s"] for r in rs])
    reads, disk = st(v, "block_reads"), st(v, "disk_reads")
    before, after, build = ix(v, "model_cost_before_s"), ix(v, "model_cost_after_s"), ix(v, "build_s")
    f = lambda x, d="%12.0f": d % x if x is not None else "%12s" % "-"
    print("%-14s %12s %7s %11s %7s %10s %7s %9s %8.2f %7.2f %8s" % (
        v, f(reads), "%.3f" % (reads / base_reads) if reads else "-", f(disk, "%11.0f"),
        "%.3f" % (disk / base_disk) if disk else "-", "%.2f s" % after if after else "-",
        "%.3f" % (after / before) if after else "-", "%.2f" % build if build is not None else "-",
        wall, wall / base_wall, all(r["healthy"] for r in rs)))
one, fifty = ix("index:1:0.9", "build_s"), ix("index:50:0.9", "build_s")
print("\nAlg. 1 build time, one pair per round over the top 50: %.1fx (paper: 30x on average)" % (one / fifty))
seeds = {r["seed"] for v in by for r in by[v]}
same = all(len({r["final_loss"] for v in by for r in by[v] if r["seed"] == s}) == 1 for s in seeds)
print("final loss equal in every variant of a seed: %s" % same)
PY
