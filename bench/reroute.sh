#!/usr/bin/env bash
# Rerouting at scale: a generated lab of N nodes and 2N links (a ring plus random chords,
# bench/gen_topology.py; no delay, so no delay lines) with `reroute: {convergence: 0ms}`,
# then EVENTS random links cut and restored one after the other with `testbed link down`
# and `link up`. Each convergence is a row of the lab's reroutes.csv: routes replaced,
# namespaces touched, the shortest paths' compute time and the kernel's (netlink) time.
# Prints per kind (cut, restore) the routes replaced and the compute and kernel
# milliseconds at p50, p99 and max, and the lab's memory and open files before and after.
#
# usage: sudo bench/reroute.sh [NODES] [EVENTS]   (default 1000 nodes, 50 events)
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-1000}
events=${2:-50}
tb=${TESTBED:-build/bin/testbed}
lab=tbb-reroute
out=bench/out
mkdir -p "$out"
trap '"$tb" down "$lab" >/dev/null 2>&1 || true' EXIT
{
  python3 bench/gen_topology.py --nodes "$nodes" --links $((2 * nodes)) --delay 0ms --lab "$lab" \
    --bandwidth 100mbit
  echo "reroute: {convergence: 0ms}"
} > "$out/reroute.yaml"
"$tb" up "$out/reroute.yaml" --prometheus off >/dev/null
run_dir=${TESTBED_RUN_DIR:-/run/testbed}/$lab
# The links, as endpoint pairs, from the profile; EVENTS of them drawn with a fixed seed.
mapfile -t pairs < <(python3 - "$out/reroute.yaml" "$events" <<'PY'
import random, re, sys
links = re.findall(r"endpoints: \[(\S+), (\S+)\]", open(sys.argv[1]).read())
for a, b in random.Random(7).sample(links, int(sys.argv[2])):
    print(a, b)
PY
)
for p in "${pairs[@]}"; do
  read -r a b <<<"$p"
  "$tb" link down "$lab" "$a" "$b" >/dev/null
  "$tb" link up "$lab" "$a" "$b" >/dev/null
done
python3 - "$run_dir/reroutes.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
print(f"{'kind':8} {'events':>6} {'routes p50':>10} {'max':>6} {'compute ms p50':>14} {'p99':>8} "
      f"{'kernel ms p50':>13} {'p99':>8} {'max':>8}")
for kind, keep in (("cut", lambda r: r["dead_links"] != ""), ("restore", lambda r: r["dead_links"] == "")):
    rs = [r for r in rows if keep(r)]
    if not rs:
        continue
    routes = [int(r["routes"]) for r in rs]
    comp = [float(r["compute_ms"]) for r in rs]
    kern = [float(r["kernel_ms"]) for r in rs]
    print(f"{kind:8} {len(rs):>6} {pct(routes, .5):>10} {max(routes):>6} {pct(comp, .5):>14.1f} "
          f"{pct(comp, .99):>8.1f} {pct(kern, .5):>13.1f} {pct(kern, .99):>8.1f} {max(kern):>8.1f}")
PY
