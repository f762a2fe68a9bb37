#include "planner.h"

#include <algorithm>

#include "address_plan.h"
#include "routing.h"

namespace testbed {
namespace {

constexpr size_t kMaxInterfaceName = 15;  // IFNAMSIZ (16) less the terminating NUL
constexpr uint32_t kFrameBytes = 1514;    // a full Ethernet frame at MTU 1500

// HTB refills its bucket from timers. With iproute2's default bucket (about one frame)
// a 1 Gbit/s class delivered 92% of its rate here; a bucket holding 2 ms of traffic
// delivered the ideal TCP goodput (95.6% = 1448/1514 payload per frame). 2 ms rides out
// timer and scheduling jitter on a loaded 2-core host while capping bursts at 2 ms.
constexpr uint64_t kBurstMicros = 2000;
// Below 65 Mbit/s, 2 ms is under 16 KiB; keep at least about ten frames so low rates are
// not throttled by the refill granularity.
constexpr uint32_t kMinBurstBytes = 16 * 1024;

// HTB's own default quantum is rate / r2q with r2q = 10; the kernel warns outside
// [1000, 200000] bytes. With one class per qdisc the quantum only decides that warning,
// so clamp it to one frame .. 200000.
constexpr uint64_t kRateToQuantum = 10;
constexpr uint64_t kMaxQuantum = 200000;

// Default queue: one bandwidth-delay product (the classic buffer-sizing rule), with the
// round trip taken as twice this direction's delay but at least 20 ms so that multi-hop
// paths over zero-delay links still absorb TCP's bursts, and never below 64 KiB (one GSO
// super-packet must always fit).
constexpr int64_t kMinQueueRttMicros = 20000;
constexpr uint64_t kMinQueueBytes = 64 * 1024;

uint32_t clamp_u32(uint64_t v) {
  return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
}

}  // namespace

std::string namespace_name(const std::string& lab, const std::string& node) {
  return "tb-" + lab + "-" + node;
}

std::string interface_name(size_t link_index, const std::string& peer) {
  // "tb" + link index keeps names unique within a namespace; the peer makes them readable.
  return ("tb" + std::to_string(link_index) + "-" + peer).substr(0, kMaxInterfaceName);
}

HtbShaping size_htb(const DirectionParams& params) {
  HtbShaping h;
  h.rate_bytes_per_s = params.rate.bytes_per_s();
  h.burst_bytes =
      clamp_u32(std::max<uint64_t>(h.rate_bytes_per_s * kBurstMicros / 1000000, kMinBurstBytes));
  h.quantum_bytes = static_cast<uint32_t>(
      std::clamp<uint64_t>(h.rate_bytes_per_s / kRateToQuantum, kFrameBytes, kMaxQuantum));
  if (params.queue) {
    h.queue.unit = params.queue->unit == QueueSize::Unit::kBytes ? QueueLimit::Unit::kBytes
                                                                 : QueueLimit::Unit::kPackets;
    h.queue.limit = clamp_u32(params.queue->amount);
  } else {
    const int64_t rtt_us = std::max<int64_t>(2 * params.delay.us, kMinQueueRttMicros);
    h.queue.unit = QueueLimit::Unit::kBytes;
    h.queue.limit = clamp_u32(std::max<uint64_t>(
        h.rate_bytes_per_s * static_cast<uint64_t>(rtt_us) / 1000000, kMinQueueBytes));
  }
  return h;
}

Plan make_plan(const Topology& topo) {
  Plan plan;
  plan.lab = topo.lab;
  plan.source_file = topo.source_file;
  plan.pool = topo.pool;
  plan.metric = topo.metric;

  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    plan.nodes.push_back({topo.nodes[i].name, namespace_name(topo.lab, topo.nodes[i].name),
                          node_address(topo.pool, i)});
  }
  for (const auto& n : plan.nodes) plan.steps.push_back(CreateNamespace{n.ns});
  for (const auto& n : plan.nodes) {
    plan.steps.push_back(SetLinkUp{n.ns, "lo"});
    plan.steps.push_back(AddAddress{n.ns, "lo", Ipv4Prefix{n.address, 32}});
    plan.steps.push_back(EnableForwarding{n.ns});
  }

  bool impairments = false;
  for (size_t l = 0; l < topo.links.size(); ++l) {
    const Link& link = topo.links[l];
    const PlannedNode& a = plan.nodes[link.a];
    const PlannedNode& b = plan.nodes[link.b];
    PlannedLink pl;
    pl.index = l;
    pl.a = a.name;
    pl.b = b.name;
    pl.if_a = interface_name(l, b.name);
    pl.if_b = interface_name(l, a.name);
    pl.subnet = link_subnet(topo.pool, l);
    pl.a2b = {a.name, b.name, a.ns, pl.if_a, link.a2b, size_htb(link.a2b)};
    pl.b2a = {b.name, a.name, b.ns, pl.if_b, link.b2a, size_htb(link.b2a)};
    for (const auto* d : {&link.a2b, &link.b2a}) {
      impairments = impairments || d->delay.us > 0 || d->jitter.us > 0 || d->loss.value > 0;
    }
    const Ipv4Prefix addr_a{Ipv4Address{pl.subnet.address.value + 1}, 30};
    const Ipv4Prefix addr_b{Ipv4Address{pl.subnet.address.value + 2}, 30};
    plan.steps.push_back(CreateVeth{a.ns, pl.if_a, b.ns, pl.if_b});
    plan.steps.push_back(SetLinkUp{a.ns, pl.if_a});
    plan.steps.push_back(SetLinkUp{b.ns, pl.if_b});
    plan.steps.push_back(AddAddress{a.ns, pl.if_a, addr_a});
    plan.steps.push_back(AddAddress{b.ns, pl.if_b, addr_b});
    plan.steps.push_back(ShapeEgress{a.ns, pl.if_a, pl.a2b.htb});
    plan.steps.push_back(ShapeEgress{b.ns, pl.if_b, pl.b2a.htb});
    plan.links.push_back(pl);
  }

  const RoutingTable table = compute_routes(topo);
  for (size_t src = 0; src < topo.nodes.size(); ++src) {
    for (size_t dst = 0; dst < topo.nodes.size(); ++dst) {
      const NextHop& hop = table[src][dst];
      if (src == dst || hop.node == SIZE_MAX) continue;
      const PlannedLink& via_link = plan.links[hop.link];
      const bool src_is_a = topo.links[hop.link].a == src;
      // The neighbour's address on the shared /30: .2 when we are endpoint a, else .1.
      const Ipv4Address via{via_link.subnet.address.value + (src_is_a ? 2u : 1u)};
      PlannedRoute r;
      r.node = plan.nodes[src].name;
      r.destination = plan.nodes[dst].name;
      r.route = {Ipv4Prefix{plan.nodes[dst].address, 32}, via,
                 src_is_a ? via_link.if_a : via_link.if_b, plan.nodes[src].address};
      for (size_t n : route_path(table, src, dst)) r.path.push_back(plan.nodes[n].name);
      r.cost = hop.cost;
      plan.steps.push_back(AddRoute{plan.nodes[src].ns, r.route});
      plan.routes.push_back(std::move(r));
    }
  }
  if (impairments) {
    plan.notes.push_back(
        "delay, jitter and loss are declared but not applied yet: this release shapes rate "
        "only (HTB); link dynamics come in a later release");
  }
  return plan;
}

}  // namespace testbed
