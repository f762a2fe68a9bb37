#!/usr/bin/env bash
# What a direction's shaping costs the kernel as devices multiply: HTB (a root and a class,
# two filter blocks per device, as `up` shapes today) against TBF (a classless rate limit,
# no filter block), on N and 4N veth devices of one scratch namespace, side by side in each
# round. Every filter block is registered in one machine-wide list that each new block
# searches from its start (find_indir_dev in net/core/flow_offload.c), so HTB's time grows
# with the square of the devices and TBF's in proportion; the last lines are the growth
# ratios (time at 4N over time at N: 4 is linear, 16 quadratic).
#
# usage: sudo bench/filter-blocks.sh [N] [ROUNDS]   (default 2000, 2)
# Makes the namespace tb-bench-blocks and removes it at the end, whatever happens.
set -euo pipefail
n=${1:-2000}
rounds=${2:-2}
ns=tb-bench-blocks
work=$(mktemp -d)
trap 'ip netns del $ns 2>/dev/null || true; rm -rf "$work"' EXIT
[ "$(id -u)" -eq 0 ] || { echo "filter-blocks: run it as root" >&2; exit 1; }
ip netns add $ns
big=$((4 * n))
for i in $(seq 1 "$big"); do echo "link add tbx$i type veth peer name tby$i"; done > "$work/links"
ip -n $ns -batch "$work/links"
batches() {  # N: the shaping of devices 1..N by either qdisc, and its removal
  local i
  for i in $(seq 1 "$1"); do
    echo "qdisc add dev tbx$i root handle 1: htb default 1"
    echo "class add dev tbx$i parent 1: classid 1:1 htb rate 100mbit quantum 1514"
  done > "$work/htb-$1"
  for i in $(seq 1 "$1"); do
    echo "qdisc add dev tbx$i root handle 1: tbf rate 100mbit burst 32kb latency 50ms"
  done > "$work/tbf-$1"
  for i in $(seq 1 "$1"); do echo "qdisc del dev tbx$i root"; done > "$work/del-$1"
}
batches "$n"
batches "$big"
timed() {  # seconds to apply one batch file
  local s e
  s=$(date +%s.%N)
  ip netns exec $ns tc -batch "$1" >/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
printf '%6s %8s %10s %10s\n' round devices "htb s" "tbf s"
declare -A sum
for r in $(seq 1 "$rounds"); do
  for count in "$n" "$big"; do
    h=$(timed "$work/htb-$count"); ip netns exec $ns tc -batch "$work/del-$count"
    t=$(timed "$work/tbf-$count"); ip netns exec $ns tc -batch "$work/del-$count"
    printf '%6s %8s %10.3f %10.3f\n' "$r" "$count" "$h" "$t"
    sum[htb-$count]=$(echo "${sum[htb-$count]:-0} + $h" | bc)
    sum[tbf-$count]=$(echo "${sum[tbf-$count]:-0} + $t" | bc)
  done
done
for q in htb tbf; do
  printf '%s: time at %s devices over time at %s: %.1f\n' "$q" "$big" "$n" \
    "$(echo "${sum[$q-$big]} / ${sum[$q-$n]}" | bc -l)"
done
