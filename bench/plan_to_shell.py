#!/usr/bin/env python3
"""Turns `testbed plan --json` into the shell script of ip/tc/iptables commands that most
testbeds (Mininet, the NetStorm scripts) run: one process per kernel change. The benchmark times
it against `testbed up`/`down`, which make the same changes through netlink.

usage: plan_to_shell.py up|down < plan.json > script.sh   (plan.json: `plan --json --routes`)"""
import json
import sys


def up(plan):
    namespace = {n["name"]: n["namespace"] for n in plan["nodes"]}
    routes_of = {}
    for r in plan["routes"]:
        routes_of.setdefault(namespace[r["node"]], []).append(r)
    yield "set -e"
    for s in plan["steps"]:
        op = s["op"]
        if op == "create_namespace":
            yield f"ip netns add {s['ns']}"
        elif op == "set_link_up":
            yield f"ip -n {s['ns']} link set {s['dev']} up"
        elif op == "add_address":
            yield f"ip -n {s['ns']} addr add {s['address']} dev {s['dev']}"
        elif op == "set_sysctl":
            key = s["key"].replace("/", ".")
            yield f"ip netns exec {s['ns']} sysctl -qw {key}='{s['value']}'"
        elif op == "add_ingress_hooks":
            # The rules only: the shell script starts no delay line and loads no eBPF
            # filter, so it does less than `testbed up` (the comparison favours it).
            ipt = f"ip netns exec {s['ns']} iptables -w -t mangle"
            for h in s["hooks"]:
                chain = "TB-" + h["dev"]
                yield f"{ipt} -N {chain}"
                if h["loss"] > 0:
                    yield (f"{ipt} -A {chain} -m statistic --mode random --probability {h['loss']} "
                           f"-j DROP")
                yield f"{ipt} -A {chain} -j NFQUEUE --queue-num {h['queue']}"
                yield f"{ipt} -A PREROUTING -i {h['dev']} -j {chain}"
        elif op == "create_veth":
            yield (f"ip link add {s['if_a']} netns {s['ns_a']} type veth "
                   f"peer name {s['if_b']} netns {s['ns_b']}")
        elif op == "shape_egress":
            ns, dev, rate, burst = s["ns"], s["dev"], s["rate_bits_per_s"], s["burst_bytes"]
            leaf = "bfifo" if s["queue"]["unit"] == "bytes" else "pfifo"
            # TBF at the root, its FIFO leaf under it (netns/tc_objects.h). tc wants a
            # limit for a TBF, which sizes the default FIFO that the leaf then replaces.
            yield (f"tc -n {ns} qdisc add dev {dev} root handle 1: tbf rate {rate}bit "
                   f"burst {burst} limit {burst}")
            yield (f"tc -n {ns} qdisc replace dev {dev} parent 1:1 handle 10: {leaf} "
                   f"limit {s['queue']['limit']}")
        elif op == "add_routes":
            # The node's routes are the plan's (`plan --json --routes` lists them), one
            # command each, as a person would type them.
            for r in routes_of.get(s["ns"], []):
                yield (f"ip -n {s['ns']} route add {r['dst']} via {r['via']} dev {r['dev']} "
                       f"src {r['src']}")
        else:
            raise SystemExit(f"unknown step {op}")


def down(plan):
    for node in plan["nodes"]:
        yield f"ip netns del {node['namespace']}"


plan = json.load(sys.stdin)
for line in {"up": up, "down": down}[sys.argv[1]](plan):
    print(line)
