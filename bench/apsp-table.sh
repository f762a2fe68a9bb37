#!/usr/bin/env bash
# APSP's Table III on the emulated WAN, one command: runs every scenario of
# profiles/scenarios/apsp (placements swept, paced and native, four models, two
# topologies; about 30 minutes on 2 cores), then prints the table and its checks, with the
# model's spread over 10 redraws of the unpublished link rates. Needs root (it builds labs).
#   bench/apsp-table.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-testbed-results/apsp-$(date +%Y%m%d-%H%M%S)}"
tb=build/bin/testbed
"$tb" regress profiles/scenarios/apsp --out "$out" --junit "$out/junit.xml" || true
python3 bench/apsp_table.py "$out"
for p in internet2-apsp b4; do
  echo
  "$tb" placement "profiles/$p.yaml" --redraws 10 | tail -3
done
