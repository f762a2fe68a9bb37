#!/usr/bin/env bash
# NetStorm reproduced in the paper's own regime (Sec. IX): AlexNet x0.25 in 61 chunks on
# Internet2 with 30 ms links, static and with the 180 s redraws in real time, then the
# report: each figure beside the paper's, the emulation's health of every run, and the
# measurements that explain the gaps (bench/paper_netstorm.py). About 70 minutes; not CI.
#
# usage: sudo bench/paper-netstorm.sh [--grid]       run the suite, then the report
#        bench/paper-netstorm.sh --report-only        the report from the last results
#   --grid adds Fig. 17's grid (PRIMARY_BUSY_BOUND 1-3 x AUXILIARY_QUEUE_LENGTH 1, 3, 5),
#   6.5 minutes a point.
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${TESTBED:-build/bin/testbed}
out=${OUT:-bench/out/paper-netstorm}
suite=profiles/scenarios/paper-netstorm
mkdir -p "$out"

if [ "${1:-}" != "--report-only" ]; then
  for s in static dynamic aux-grid; do
    rm -rf "${out:?}/$s"
    # A scenario that misses an expectation (say, an unhealthy run) still has its
    # results; the report says which.
    "$tb" run "$suite/$s.yaml" --out "$out/$s" | tee "$out/$s.log" || true
  done
  if [ "${1:-}" = "--grid" ]; then
    for bound in 1 2 3; do
      for queue in 1 3 5; do
        # 2/1 is netstorm-pro in dynamic.yaml, 2/5 is aux-grid.yaml.
        [ "$bound/$queue" = 2/1 ] || [ "$bound/$queue" = 2/5 ] && continue
        sed -e "s/primary-busy-bound: 2, aux-queue-length: 5/primary-busy-bound: $bound, aux-queue-length: $queue/" \
            -e "s|topology: ../../internet2-dynamic.yaml|topology: $PWD/profiles/internet2-dynamic.yaml|" \
            -e "s/^name: .*/name: paper-netstorm-aux-$bound-$queue/" \
            "$suite/aux-grid.yaml" > "$out/grid-$bound-$queue.yaml"
        rm -rf "${out:?}/grid-$bound-$queue"
        "$tb" run "$out/grid-$bound-$queue.yaml" --out "$out/grid-$bound-$queue" |
          tee "$out/grid-$bound-$queue.log" || true
      done
    done
  fi
fi
python3 bench/paper_netstorm.py "$out"
