#!/usr/bin/env bash
# Times `testbed up` and `testbed down` of internet2, b4 and a generated 200-node,
# 400-link topology, and in the same run the same changes made by a shell script of
# ip/tc commands (bench/plan_to_shell.py). Prints medians and the shell/testbed ratio,
# since absolute times drift on shared machines.
#
# usage: sudo bench/bringup.sh [RUNS]   (default 5; the 200-node shell script runs
#        fewer times, see SHELL_BIG_RUNS, as it forks some 45,000 processes per run)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shell_big_runs=${SHELL_BIG_RUNS:-1}
tb=${TESTBED:-build/bin/testbed}
out=bench/out
mkdir -p "$out"

python3 bench/gen_topology.py --nodes 200 --links 400 --lab tbb-gen200 > "$out/gen200.yaml"
sed 's/^lab: internet2$/lab: tbb-internet2/' profiles/internet2.yaml > "$out/internet2.yaml"
sed 's/^lab: b4$/lab: tbb-b4/' profiles/b4.yaml > "$out/b4.yaml"

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

shell_down=""  # the down script of a shell bring-up in progress: its namespaces are ours
cleanup() {
  for lab in tbb-internet2 tbb-b4 tbb-gen200; do "$tb" down "$lab" >/dev/null 2>&1 || true; done
  if [ -n "$shell_down" ]; then bash "$shell_down" 2>/dev/null || true; fi
}
trap cleanup EXIT

printf '%-10s %6s %6s %11s %11s %8s %11s %11s %8s\n' topology nodes links "tb up s" "sh up s" "sh/tb" \
  "tb down s" "sh down s" "sh/tb"
for topo in internet2 b4 gen200; do
  file="$out/$topo.yaml"
  lab=$(awk '/^lab:/ {print $2}' "$file")
  "$tb" plan --json "$file" > "$out/$topo.plan.json"
  python3 bench/plan_to_shell.py up < "$out/$topo.plan.json" > "$out/$topo.up.sh"
  python3 bench/plan_to_shell.py down < "$out/$topo.plan.json" > "$out/$topo.down.sh"
  : > "$out/$topo.times"
  n_shell=$runs
  [ "$topo" = gen200 ] && n_shell=$shell_big_runs
  for i in $(seq "$runs"); do
    t0=$(now); "$tb" up "$file" --prometheus off > /dev/null; t1=$(now); "$tb" down "$lab" > /dev/null; t2=$(now)
    echo "tb_up $(echo "$t1 - $t0" | bc -l)" >> "$out/$topo.times"
    echo "tb_down $(echo "$t2 - $t1" | bc -l)" >> "$out/$topo.times"
    if [ "$i" -le "$n_shell" ]; then
      shell_down="$out/$topo.down.sh"
      t0=$(now); bash "$out/$topo.up.sh"; t1=$(now); bash "$out/$topo.down.sh"; t2=$(now)
      shell_down=""
      echo "sh_up $(echo "$t1 - $t0" | bc -l)" >> "$out/$topo.times"
      echo "sh_down $(echo "$t2 - $t1" | bc -l)" >> "$out/$topo.times"
    fi
  done
  m() { awk -v k="$1" '$1 == k {print $2}' "$out/$topo.times" | median; }
  tu=$(m tb_up); su=$(m sh_up); td=$(m tb_down); sd=$(m sh_down)
  nodes=$(python3 -c "import json,sys; p=json.load(open('$out/$topo.plan.json')); print(len(p['nodes']), len(p['links']))")
  printf '%-10s %6s %6s %11.3f %11.3f %8.1f %11.3f %11.3f %8.1f\n' "$topo" $nodes "$tu" "$su" \
    "$(echo "$su / $tu" | bc -l)" "$td" "$sd" "$(echo "$sd / $td" | bc -l)"
  echo "$topo $tu" >> "$out/targets"
done
echo
echo "medians of $runs runs (shell script of the 200-node topology: $shell_big_runs)"
awk '$1 == "internet2" {printf "target internet2 up < 0.5 s: %.3f s %s\n", $2, ($2 < 0.5 ? "met" : "MISSED")}
     $1 == "gen200"    {printf "target 200 nodes up < 10 s: %.3f s %s\n", $2, ($2 < 10 ? "met" : "MISSED")}' "$out/targets"
rm -f "$out/targets"
