#!/usr/bin/env bash
# Times `testbed up` and `testbed down` of internet2, b4 and a generated 200-node,
# 400-link topology, and in the same run the same changes made by a shell script of
# ip/tc commands (bench/plan_to_shell.py). Prints medians and the shell/testbed ratio,
# since absolute times drift on shared machines.
#
# Then Mininet, the field's usual tool, beside the testbed in the same run: rings of 10,
# 100, 200 and 500 nodes (every link 100 Mbit/s each way, no delay) against Mininet's
# linear topologies of as many hosts (bench/mininet_peer.py), and iperf3 through one
# 100 Mbit/s link in each.
#
# usage: sudo bench/bringup.sh [RUNS]   (default 5; the 200-node shell script runs
#        fewer times, see SHELL_BIG_RUNS, as it forks some 45,000 processes per run)
#        PARTS=shell|mininet|shell,mininet (default both), MININET_SIZES="10 100 200 500",
#        MININET_RUNS (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shell_big_runs=${SHELL_BIG_RUNS:-1}
parts=${PARTS:-shell,mininet}
mininet_sizes=${MININET_SIZES:-10 100 200 500}
mininet_runs=${MININET_RUNS:-3}
tb=${TESTBED:-build/bin/testbed}
out=bench/out
mkdir -p "$out"

python3 bench/gen_topology.py --nodes 200 --links 400 --lab tbb-gen200 > "$out/gen200.yaml"
sed 's/^lab: internet2$/lab: tbb-internet2/' profiles/internet2.yaml > "$out/internet2.yaml"
sed 's/^lab: b4$/lab: tbb-b4/' profiles/b4.yaml > "$out/b4.yaml"

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

shell_down=""  # the down script of a shell bring-up in progress: its namespaces are ours
mininet_running=""  # a Mininet run in progress: `mn -c` removes what it made if we stop
cleanup() {
  for lab in tbb-internet2 tbb-b4 tbb-gen200 tbb-ring tbb-pair; do
    "$tb" down "$lab" >/dev/null 2>&1 || true
  done
  if [ -n "$mininet_running" ]; then mn -c >/dev/null 2>&1 || true; fi
  if [ -n "$shell_down" ]; then bash "$shell_down" 2>/dev/null || true; fi
}
trap cleanup EXIT

if [[ ",$parts," == *,shell,* ]]; then
printf '%-10s %6s %6s %11s %11s %8s %11s %11s %8s\n' topology nodes links "tb up s" "sh up s" "sh/tb" \
  "tb down s" "sh down s" "sh/tb"
for topo in internet2 b4 gen200; do
  file="$out/$topo.yaml"
  lab=$(awk '/^lab:/ {print $2}' "$file")
  "$tb" plan --json --routes "$file" > "$out/$topo.plan.json"
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
fi

[[ ",$parts," == *,mininet,* ]] || exit 0
# Mininet and its bridge-utils are Debian packages; installed here when missing.
if ! /usr/bin/python3 -c "import mininet" 2>/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mininet \
    bridge-utils >/dev/null
fi
echo
echo "testbed against Mininet 2.3.0 (Linux bridges, no controller, tc-shaped links):"
echo "testbed: a ring of N nodes, N routed links (every pair routed), delay lines as it runs them;"
echo "Mininet: linear,N (N hosts, N bridges, 2N-1 links), switched, no routes"
printf '%6s %11s %11s %11s %11s %11s %11s %9s\n' nodes "tb up s" "tb down s" "tb total" "mn up s" \
  "mn down s" "mn total" "mn/tb"
for n in $mininet_sizes; do
  python3 bench/gen_topology.py --nodes "$n" --links "$n" --lab tbb-ring --delay 0ms \
    --bandwidth 100mbit > "$out/ring$n.yaml"
  : > "$out/ring$n.times"
  for i in $(seq "$mininet_runs"); do
    t0=$(now); "$tb" up "$out/ring$n.yaml" --prometheus off > /dev/null; t1=$(now)
    "$tb" down tbb-ring > /dev/null; t2=$(now)
    echo "tb_up $(echo "$t1 - $t0" | bc -l)" >> "$out/ring$n.times"
    echo "tb_down $(echo "$t2 - $t1" | bc -l)" >> "$out/ring$n.times"
    mininet_running=1
    bench/mininet_peer.py bringup "$n" | awk '{print "mn_up", $2; print "mn_down", $4}' \
      >> "$out/ring$n.times"
    mininet_running=""
  done
  m() { awk -v k="$1" '$1 == k {print $2}' "$out/ring$n.times" | median; }
  tu=$(m tb_up); td=$(m tb_down); mu=$(m mn_up); md=$(m mn_down)
  printf '%6s %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f %9.1f\n' "$n" "$tu" "$td" \
    "$(echo "$tu + $td" | bc -l)" "$mu" "$md" "$(echo "$mu + $md" | bc -l)" \
    "$(echo "($mu + $md) / ($tu + $td)" | bc -l)"
done
echo "medians of $mininet_runs runs"

# Rate fidelity: iperf3 through one 100 Mbit/s link in each, in the same run.
cat > "$out/pair.yaml" <<'PAIR'
lab: tbb-pair
nodes: {a: {}, b: {}}
links:
  - {endpoints: [a, b], bandwidth: 100mbit}
PAIR
"$tb" up "$out/pair.yaml" --prometheus off > /dev/null
"$tb" exec --lab tbb-pair a -- iperf3 -s -D -1 > /dev/null
sleep 0.5
tb_mbit=$("$tb" exec --lab tbb-pair b -- iperf3 -c a -t 5 -O 2 -J |
  python3 -c "import json,sys; print('%.2f' % (json.load(sys.stdin)['end']['sum_received']['bits_per_second'] / 1e6))")
"$tb" down tbb-pair > /dev/null
mininet_running=1
mn_mbit=$(bench/mininet_peer.py iperf 100 | awk '{print $2}')
mininet_running=""
echo "iperf3 through one 100 Mbit/s link (5 s, first 2 left out): testbed $tb_mbit Mbit/s," \
  "Mininet $mn_mbit Mbit/s; TCP's goodput at 100 Mbit/s of frames is 95.64 (1448/1514)"
