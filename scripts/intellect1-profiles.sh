#!/bin/bash
# Writes INTELLECT-1 in a box (docs/intellect1.md): 14 data centers from measured cloud
# regions (profiles/data/cloud-regions, `testbed import cloud`), on one continent and on
# three, each with and without churn, and the report's job scaled to this machine:
#   profiles/intellect1-na-14.yaml            14 regions of North America (13 in the US
#                                             and AWS Montreal: the tables hold 13 US ones)
#   profiles/intellect1-global-14.yaml        6 in the US, 5 in Europe, 3 in Asia
#   profiles/intellect1-{na,global}-14-churn.yaml   the same, every node churning
# The tables measured few pairs within GCP or within Azure (none among these regions), so
# the mesh is partial (`--partial`): those pairs are left out and their traffic routed over
# the others. The nodes are listed in ring order (the elastic ring forms in the profile's
# order): clouds in turn, so that no two neighbours are a pair left out, across each
# continent, then to the next, so the ring crosses an ocean three times.
#
#   scripts/intellect1-profiles.sh [TESTBED]   (default build/bin/testbed)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${1:-build/bin/testbed}

# Rates at 1/1000 of the measured ones (their 64 flows between large VMs): with the model's
# bytes scaled by 1/50,000 (docs/intellect1.md), bytes over rate, the all-reduce's time on
# the wire, is 1/50 of the report's, as its compute is.
rate_scale=0.001

na_regions=aws:us-west-2,gcp:us-west1-a,azure:westus,aws:us-west-1,gcp:us-west4-a,azure:westus3,gcp:us-central1-a,azure:northcentralus,aws:us-east-2,aws:ca-central-1,gcp:us-east1-b,azure:eastus,gcp:us-east4-a,aws:us-east-1
na_names=aws-oregon,gcp-oregon,az-california,aws-california,gcp-nevada,az-arizona,gcp-iowa,az-illinois,aws-ohio,aws-montreal,gcp-carolina,az-virginia,gcp-virginia,aws-virginia
gl_regions=aws:us-west-2,azure:westus3,gcp:us-central1-a,azure:eastus,aws:us-east-1,gcp:us-east4-a,aws:eu-west-1,gcp:europe-west4-a,azure:westeurope,aws:eu-central-1,gcp:europe-north1-a,azure:koreacentral,gcp:asia-southeast1-a,aws:ap-northeast-1
gl_names=aws-oregon,az-arizona,gcp-iowa,az-virginia,aws-virginia,gcp-virginia,aws-ireland,gcp-netherlands,az-netherlands,aws-frankfurt,gcp-finland,az-seoul,gcp-singapore,aws-tokyo

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
write() {  # NAME LAB REGIONS NAMES
  "$tb" import cloud --regions "$3" --names "$4" --lab "$2" --rate-scale "$rate_scale" \
    --partial --out "$tmp" 2>/dev/null
  /usr/bin/python3 - "$tmp" "profiles/$1.yaml" "profiles/$1-churn.yaml" "$2" <<'PY'
import sys
made, out, churned, lab = sys.argv[1:]
text = open(made).read().replace(made, out)
# INTELLECT-1's job at 1/50 of its time (docs/intellect1.md): 100 inner steps of 410 ms
# (its ~20.5 s: 1M tokens a step on 8 H100s at its 36-41% MFU), a 10B model's int8
# bytes x 1/50,000 (ResNet-50's 25.6 M weights x 0.0078: 200k), 4 outer steps.
workload = """workload:
  strategy: diloco
  diloco-elastic: "on"
  diloco-h: "100"
  diloco-wire: int8
  model: resnet50
  scale: "0.0078"
  compute-ms: "410"
  iterations: "400"
"""
note = ("# INTELLECT-1 in a box (docs/intellect1.md), made by scripts/intellect1-profiles.sh.\n")
plain = note + text.replace("nodes:\n", workload + "nodes:\n", 1)
open(out, "w").write(plain)
# Churn: each node in for a mean of 120 s, away for 45 s (the lab's time), seeded; about
# one cycle a node a run: 14 providers at the start and some ten joins (docs/intellect1.md).
lines, out_lines, in_nodes = plain.splitlines(keepends=True), [], False
for line in lines:
    if line.startswith("nodes:"):
        in_nodes = True
    elif in_nodes and not line.startswith("  "):
        in_nodes = False
    if in_nodes and line.startswith("  ") and ": {}" in line:
        line = line.replace(": {}", ": {churn: {up_mean: 120s, away_mean: 45s, until: 1800s}}", 1)
    out_lines.append(line)
churn_text = "".join(out_lines).replace(out, churned).replace("lab: " + lab, "lab: " + lab + "c", 1)
open(churned, "w").write(churn_text.replace(note, note + "# Every node churning.\n", 1))
PY
  echo "wrote profiles/$1.yaml and profiles/$1-churn.yaml"
}
write intellect1-na-14 tbi1na "$na_regions" "$na_names"
write intellect1-global-14 tbi1gl "$gl_regions" "$gl_names"
