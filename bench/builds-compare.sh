#!/usr/bin/env bash
# Two builds of the testbed side by side, to show a change of layout or plumbing left the
# systems' behaviour as it was: every built-in system trains the same short job on the same
# lab (the tiny triangle), the builds alternating run by run, ROUNDS times. Prints, per
# system and build, the mean seconds per iteration and the final held-out loss, and the
# ratio new/old of the seconds. Where a run is deterministic (BSP, all-reduce, DRPS's BSP,
# APSP's placement, DiLoCo's rounds) the losses must be equal, to the digit. The *-knobs
# rows set each system's own options away from their defaults. Gaia's BSP
# inside is equal unless a mirror's update arrives late (it did in 1 of 4 rounds).
#
# usage: sudo [SYSTEMS=REGEX] bench/builds-compare.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]
#        (default 2 rounds; SYSTEMS picks systems by name, e.g. 'rr-sync|tr-sync|diloco')
#   e.g. git worktree add /tmp/old REV && cmake -S /tmp/old -B /tmp/old/build && \
#        cmake --build /tmp/old/build --target testbed testbed-agent testbed-delayline && \
#        sudo bench/builds-compare.sh /tmp/old/build/bin build/bin
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]}
new=${2:?usage: $0 OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]}
rounds=${3:-2}
out=bench/out/builds-compare
mkdir -p "$out"
lab=tbt-triangle
cleanup() { "$new/testbed" down "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# Each system's run: short, and as the docs' own examples run them.
systems=(
  "bsp|--strategy bsp --model mf --iterations 20 --compute-ms 20"
  "ssp|--strategy ssp --model mf --iterations 20 --compute-ms 20"
  "async|--strategy async --model mf --iterations 20 --compute-ms 20"
  "netstorm|--strategy netstorm --scale 0.01 --iterations 3"
  "mst|--strategy mst --scale 0.01 --iterations 3"
  "apsp|--strategy apsp --iterations 5"
  "gaia|--strategy gaia --iterations 5"
  "drps|--strategy drps --model sparse-lr --iterations 5"
  "mlfabric-a|--strategy mlfabric-a --servers a --iterations 5"
  "mlfabric-s|--strategy mlfabric-s --servers a --iterations 5"
  "rr-sync|--strategy rr-sync --iterations 5"
  "tr-sync|--strategy tr-sync --iterations 5"
  "diloco|--strategy diloco --model logreg --diloco-h 5 --iterations 20 --compute-ms 20"
  # Each system's own options away from their defaults: their tables' values reach the run.
  "gaia-knobs|--strategy gaia --iterations 5 --gaia-ds off --gaia-threshold 2% --gaia-local ssp:2"
  "drps-knobs|--strategy drps --model sparse-lr --iterations 5 --parallel wsp --index on --partition on"
  "bsp-disk|--strategy bsp --model sparse-lr --iterations 5 --store disk --memory-budget-mb 2"
  "mlfabric-a-knobs|--strategy mlfabric-a --servers a --iterations 5 --delay-bound 1 --aggregators 0"
  "apsp-knobs|--strategy apsp --iterations 5 --capacity directed --draws 3 --apsp-mode native"
)
: > "$out/runs.txt"
for round in $(seq 1 "$rounds"); do
  for build in old new; do
    bin=$old; [ "$build" = new ] && bin=$new
    "$bin/testbed" up profiles/tiny/triangle.yaml --prometheus off >/dev/null
    for entry in "${systems[@]}"; do
      name=${entry%%|*}
      [[ "$name" =~ ^(${SYSTEMS:-.*})$ ]] || continue
      read -r -a args <<<"${entry#*|}"
      line=$("$bin/testbed" train "$lab" "${args[@]}" --json 2>/dev/null | tail -1 |
        python3 -c 'import json,sys
d = json.load(sys.stdin)
loss = d.get("final_loss")
print("%.6f %s" % (d["mean_iteration_s"], "%.10g" % loss if isinstance(loss, (int, float)) else "-"))' ||
        echo "failed -")
      echo "$round $build $name $line" | tee -a "$out/runs.txt"
    done
    "$bin/testbed" down "$lab" >/dev/null
  done
done
python3 - "$out/runs.txt" <<'PY'
import collections, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    rnd, build, name, secs, loss = line.split()
    runs[(name, build)].append((secs, loss))
names = list(dict.fromkeys(k[0] for k in runs))
print("%-11s %14s %14s %9s  %-24s %-24s %s" % ("system", "old s/it", "new s/it", "new/old",
                                               "old final loss", "new final loss", "losses"))
for n in names:
    o, w = runs[(n, "old")], runs[(n, "new")]
    def mean(rs):
        xs = [float(s) for s, _ in rs if s != "failed"]
        return sum(xs) / len(xs) if xs else float("nan")
    same = "equal" if [l for _, l in o] == [l for _, l in w] else "differ"
    print("%-11s %14.4f %14.4f %9.3f  %-24s %-24s %s" % (n, mean(o), mean(w), mean(w) / mean(o),
          ",".join(l for _, l in o), ",".join(l for _, l in w), same))
PY
