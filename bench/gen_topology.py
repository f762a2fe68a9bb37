#!/usr/bin/env python3
"""Writes a connected topology of N nodes and M links: a ring (so every node is
reachable) plus random chords, with per-direction rates drawn from NetStorm's
20..155 Mbit/s range; --flaps N makes N of its links (drawn with the seed) flap at random.
--star N writes instead one hub and N leaves, each leaf's link with its own rate and
delay (1..50 ms one way), as thousands of sites behind one coordinator.
The seed makes it the same file every time."""
import argparse
import random

parser = argparse.ArgumentParser()
parser.add_argument("--nodes", type=int, default=200)
parser.add_argument("--links", type=int, default=400)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--lab", default="tbb-gen")
parser.add_argument("--delay", default="10ms", help="every link's one-way delay (0ms: none)")
parser.add_argument("--bandwidth", default="",
                    help="every direction's rate (e.g. 100mbit) instead of random ones")
parser.add_argument("--every", default="",
                    help="give every direction a random rate redrawn this often (e.g. 1s)")
parser.add_argument("--flaps", type=int, default=0,
                    help="this many links flap at random (exponential up and down times)")
parser.add_argument("--up-mean", default="800ms", help="a flapping link's mean time up")
parser.add_argument("--down-mean", default="200ms", help="a flapping link's mean time down")
parser.add_argument("--reroute", default="",
                    help="route around dead links with this convergence delay (e.g. 300ms)")
parser.add_argument("--star", type=int, default=0,
                    help="one hub and this many leaves instead of a ring with chords")
args = parser.parse_args()
if args.star:
    rng = random.Random(args.seed)
    print(f"# a star: one hub, {args.star} leaves, seed {args.seed} (bench/gen_topology.py)")
    print(f"lab: {args.lab}")
    print("nodes:")
    print("  hub: {}")
    for i in range(args.star):
        print(f"  l{i}: {{}}")
    # --every: each leaf's link redraws both directions' rates (the timeline's load at scale)
    every = (f"schedule: {{random: {{every: {args.every}, bandwidth: 20mbit..155mbit}}}}, "
             if args.every else "")
    print("links:")
    for i in range(args.star):
        delay = f"{rng.randint(1, 50)}ms"
        print(f"  - {{endpoints: [hub, l{i}], {every}"
              f"a2b: {{bandwidth: {rng.randint(20, 155)}mbit, delay: {delay}}}, "
              f"b2a: {{bandwidth: {rng.randint(20, 155)}mbit, delay: {delay}}}}}")
    raise SystemExit(0)
if args.links < args.nodes or args.links > args.nodes * (args.nodes - 1) // 2:
    raise SystemExit("need nodes <= links <= nodes*(nodes-1)/2")

rng = random.Random(args.seed)
pairs = {(i, (i + 1) % args.nodes) for i in range(args.nodes)}
while len(pairs) < args.links:
    a, b = rng.sample(range(args.nodes), 2)
    if (a, b) not in pairs and (b, a) not in pairs:
        pairs.add((a, b))

print(f"# {args.nodes} nodes, {args.links} links, seed {args.seed} (bench/gen_topology.py)")
print(f"lab: {args.lab}")
if args.every:
    print(f"defaults: {{delay: {args.delay}, schedule: {{random: {{every: {args.every}, "
          f"bandwidth: 20mbit..155mbit}}}}}}")
else:
    print(f"defaults: {{delay: {args.delay}}}")
print("nodes:")
for i in range(args.nodes):
    print(f"  n{i}: {{}}")
if args.reroute:
    print(f"reroute: {{convergence: {args.reroute}}}")
# Drawn from their own generator, so the links and rates do not depend on --flaps.
flapping = set(random.Random(args.seed + 1).sample(sorted(pairs), args.flaps))
flap = f"schedule: {{flap: {{up_mean: {args.up_mean}, down_mean: {args.down_mean}}}}}, "
print("links:")
for a, b in sorted(pairs):
    a2b = args.bandwidth or f"{rng.randint(20, 155)}mbit"
    b2a = args.bandwidth or f"{rng.randint(20, 155)}mbit"
    print(f"  - {{endpoints: [n{a}, n{b}], {flap if (a, b) in flapping else ''}"
          f"a2b: {{bandwidth: {a2b}}}, b2a: {{bandwidth: {b2a}}}}}")
