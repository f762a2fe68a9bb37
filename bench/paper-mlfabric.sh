#!/usr/bin/env bash
# MLfabric's Table 2 (Sec. 7.1) in both regimes, every figure from a run here, three seeds
# per cell (each its own network draws and stragglers):
#   paper   profiles/scenarios/mlfabric-paper-regime/: communication-bound as the paper's
#           ResNet-50 (an update's transfer about its compute time), the server's link as
#           the paper gives it; C1 also with the server's link redrawn (the other reading);
#           C1-N2 under both readings of the monitor, the N3 cells given 80 clocks
#   today   profiles/scenarios/mlfabric/table2-*.yaml: the same job at full rates and 300 ms
#           of compute, compute- and straggler-bound
#   sync    MLfabric-S against Tr-Sync (sync-c2-n2-resnet{50,152}.yaml)
#   stragglers  C1-C3 read two ways side by side (profiles/scenarios/mlfabric-compute/): the
#           agents' waits against CPU throttling of hosts with 0.15 CPU each
# Each scenario writes bench/out/mlfabric/<name>/; then bench/mlfabric_table2.py prints
# each table beside the paper's. About 62 min for paper, 35 for today, 6 for sync, 20 for
# stragglers.
#
# usage: sudo bench/paper-mlfabric.sh [paper] [today] [sync] [stragglers]   (none: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
out=${OUT:-bench/out/mlfabric}
mkdir -p "$out"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(paper today sync stragglers)
cells=(c1-n1 c1-n2 c1-n3 c2-n1 c2-n2 c2-n3 c3-n1 c3-n2 c3-n3)
run() {  # scenario file, results name
  echo "== $2 ($(date +%T))"
  "$tb" run "$1" --out "$out/$2" | tail -n 8
}
for part in "${parts[@]}"; do
  case "$part" in
    paper)
      for c in "${cells[@]}"; do
        run "profiles/scenarios/mlfabric-paper-regime/table2-$c.yaml" "mlfabric-paper-regime-$c"
      done
      for n in n1 n2 n3; do
        run "profiles/scenarios/mlfabric-paper-regime/table2-c1-$n-server-redrawn.yaml" \
          "mlfabric-paper-regime-c1-$n-server-redrawn"
      done
      # the monitor's two readings; each N3 cell given 80 clocks
      for x in monitor-c1-n2 horizon-c1-n3 horizon-c2-n3 horizon-c3-n3; do
        run "profiles/scenarios/mlfabric-paper-regime/$x.yaml" "mlfabric-paper-regime-$x"
      done
      echo "== Table 2, the paper's regime"
      python3 bench/mlfabric_table2.py --results "$out" --prefix mlfabric-paper-regime
      echo "== C1 with the server's link redrawn"
      python3 bench/mlfabric_table2.py --results "$out" --prefix mlfabric-paper-regime \
        --suffix=-server-redrawn --cells c1-n1,c1-n2,c1-n3
      ;;
    today)
      for c in "${cells[@]}"; do
        run "profiles/scenarios/mlfabric/table2-$c.yaml" "mlfabric-table2-$c"
      done
      echo "== Table 2, today's regime"
      python3 bench/mlfabric_table2.py --results "$out" --prefix mlfabric-table2
      ;;
    sync)
      for m in resnet50 resnet152; do
        run "profiles/scenarios/mlfabric/sync-c2-n2-$m.yaml" "mlfabric-sync-c2-n2-$m"
      done
      ;;
    stragglers)
      for c in c1 c2 c3; do
        run "profiles/scenarios/mlfabric-compute/stragglers-$c.yaml" "mlfabric-stragglers-$c"
      done
      echo "== C1-C3: the agents' waits against CPU throttling"
      python3 bench/mlfabric_stragglers.py --results "$out"
      ;;
    *)
      echo "usage: $0 [paper] [today] [sync] [stragglers]" >&2
      exit 2
      ;;
  esac
done
