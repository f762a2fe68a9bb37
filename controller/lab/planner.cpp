#include "controller/lab/planner.h"

#include <algorithm>
#include <map>

#include "controller/lab/route_book.h"
#include "controller/topology/address_plan.h"
#include "controller/topology/schedule.h"

namespace testbed {
namespace {

constexpr size_t kMaxInterfaceName = 15;  // IFNAMSIZ (16) less the terminating NUL
constexpr uint32_t kFrameBytes = 1514;    // a full Ethernet frame at MTU 1500

// The token bucket refills from timers. With a bucket of about one frame (iproute2's
// default for HTB, as this planner used before TBF) a 1 Gbit/s direction delivered 92% of
// its rate here; a bucket holding 2 ms of traffic delivered the ideal TCP goodput (95.6% =
// 1448/1514 payload per frame). 2 ms rides out timer and scheduling jitter on a loaded
// 2-core host while capping bursts at 2 ms.
constexpr uint64_t kBurstMicros = 2000;
// Below 65 Mbit/s, 2 ms is under 16 KiB; keep at least about ten frames so low rates are
// not throttled by the refill granularity.
constexpr uint32_t kMinBurstBytes = 16 * 1024;

// Plus one GSO super-packet (kGsoPacketBytes below): TBF splits a packet larger than its
// bucket into frames, which then cross the receiver's delay line one by one. Measured here
// through a veth pair at 66 Mbit/s, iperf3 for 6 s: with a bucket of 2 ms (16.5 KB) the
// receiver counted 31,256 packets, with this one 1,608, and HTB's old tree (which never
// splits: it lets a whole super-packet through on any credit, so its largest burst was the
// bucket plus one super-packet, as TBF's is now) 1,652; goodput 63.1 Mbit/s in all three.

// The largest rate TBF's read-back carries: libnl reads its 32-bit field (2^32 - 1
// bytes/s, 34.4 Gbit/s). A faster direction is shaped at this: more than a veth pair and a
// delay line carry on a machine of this kind, and the plan shows it.
constexpr uint64_t kMaxShapedBytesPerS = UINT32_MAX;

// Default queue: one bandwidth-delay product (the classic buffer-sizing rule), with the
// round trip taken as twice this direction's delay but at least 20 ms so that multi-hop
// paths over zero-delay links still absorb TCP's bursts. Never below two GSO super-packets
// as a qdisc counts them (64 KiB of payload is 45 segments of 1514 bytes each, 68,130 bytes):
// a FIFO smaller than one drops every such packet and TCP stalls (measured here: 0.5 Mbit/s
// through a 10 Mbit/s link with a 64 KiB queue).
constexpr int64_t kMinQueueRttMicros = 20000;
constexpr uint64_t kGsoPacketBytes = 45 * kFrameBytes;
constexpr uint64_t kMinQueueBytes = 2 * kGsoPacketBytes;

// netem, on the receiving side, holds only the packets in flight through the delay: they
// arrive at most at the link's rate (the sender's TBF sees to that) and leave when due, so
// nothing queues there and its limit is no buffer, only a cap that must never drop. Counted
// in packets, so sized for the smallest (a 64-byte minimum Ethernet frame, an ACK's size)
// over delay plus jitter at the full rate; never below netem's own default of 1000.
constexpr uint64_t kMinNetemLimit = 1000;
constexpr uint64_t kMinFrameBytes = 64;

// TCP buffers: autotuning grows a socket's buffer to about twice the window it needs, and
// the window must hold a bandwidth-delay product. Linux's defaults cap tcp_rmem at 6 MiB,
// which holds 155 Mbit/s only up to a 160 ms round trip. The cap is set per namespace to
// 2 x the lab's largest rate x its largest round trip, within [6 MiB, 256 MiB].
constexpr uint64_t kDefaultTcpBufferMax = 6291456;
constexpr uint64_t kTcpBufferCap = 256ULL * 1024 * 1024;

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

std::string ifb_name(size_t link_index, const std::string& sender) {
  // "tbi" + the link's index keeps it unique in the namespace, as interface_name's "tb" +
  // index does (and "tbi" never reads as "tb" + digits).
  return ("tbi" + std::to_string(link_index) + "-" + sender).substr(0, kMaxInterfaceName);
}

RateShaping size_shaping(const DirectionParams& params) {
  RateShaping h;
  h.rate_bytes_per_s = std::min(params.rate.bytes_per_s(), kMaxShapedBytesPerS);
  h.burst_bytes =
      clamp_u32(std::max<uint64_t>(h.rate_bytes_per_s * kBurstMicros / 1000000, kMinBurstBytes) +
                kGsoPacketBytes);
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

NetemParams size_netem(const DirectionParams& params) {
  const uint64_t held_bytes = params.rate.bytes_per_s() *
                              static_cast<uint64_t>(params.delay.us + params.jitter.us) / 1000000;
  NetemParams n;
  n.delay_us = static_cast<uint32_t>(params.delay.us);
  n.jitter_us = static_cast<uint32_t>(params.jitter.us);
  n.loss = params.loss.value;
  n.burst = params.burst_loss;
  n.limit_packets = clamp_u32(std::max(kMinNetemLimit, held_bytes / kMinFrameBytes));
  n.keep_order = !params.reorder;
  return n;
}

bool impaired(const DirectionParams& d) {
  return d.delay.us > 0 || d.jitter.us > 0 || d.loss.value > 0 || d.burst_loss ||
         schedule_impairs(d.schedule);
}

Plan make_plan(const Topology& topo, bool kernel_has_netem) {
  Plan plan;
  plan.lab = topo.lab;
  plan.source_file = topo.source_file;
  plan.pool = topo.pool;
  plan.metric = topo.metric;
  plan.reroute_convergence_us = topo.reroute_convergence_us;
  if (topo.reroute_convergence_us) {
    plan.notes.push_back("routes converge around a dead link " +
                         format_duration(Duration{*topo.reroute_convergence_us}) +
                         " after it goes down, and back after it comes up (reroute)");
  }
  plan.seed = topo.seed;
  plan.workload = topo.workload;
  switch (topo.backend) {
    case ImpairmentBackend::kAuto:
      plan.backend = kernel_has_netem ? ImpairmentBackend::kNetem : ImpairmentBackend::kDelayLine;
      plan.backend_reason = kernel_has_netem
                                ? "auto: the kernel has sch_netem"
                                : "auto: the kernel has no sch_netem, so a userspace delay line "
                                  "(NFQUEUE) on each receiving side";
      break;
    case ImpairmentBackend::kNetem:
      plan.backend = ImpairmentBackend::kNetem;
      plan.backend_reason = "forced: netem";
      break;
    case ImpairmentBackend::kDelayLine:
      plan.backend = ImpairmentBackend::kDelayLine;
      plan.backend_reason = "forced: userspace delay line (NFQUEUE)";
      break;
  }
  const bool use_netem = plan.backend == ImpairmentBackend::kNetem;

  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    plan.nodes.push_back({topo.nodes[i].name, namespace_name(topo.lab, topo.nodes[i].name),
                          node_address(topo.pool, i), topo.nodes[i].schedule, topo.nodes[i].compute,
                          topo.nodes[i].straggler});
    plan.has_schedules = plan.has_schedules || topo.nodes[i].straggler.has_value();
    plan.has_schedules = plan.has_schedules || !topo.nodes[i].schedule.empty();
  }
  // The routes' book (route_book.h): computed here once, shared with the plan's slices.
  std::vector<RouteBook::Node> book_nodes;
  for (const auto& n : plan.nodes) book_nodes.push_back({n.name, n.address});
  std::vector<RouteBook::Link> book_links;
  std::vector<std::pair<int64_t, int64_t>> worst_delays;  // per link: a->b, b->a, jitter in
  for (size_t l = 0; l < topo.links.size(); ++l) {
    const Link& link = topo.links[l];
    book_links.push_back(
        {link.a, link.b, link_subnet(topo.pool, l), interface_name(l, topo.nodes[link.b].name),
         interface_name(l, topo.nodes[link.a].name), link.a2b.delay.us, link.b2a.delay.us});
    worst_delays.emplace_back(link.a2b.delay.us + link.a2b.jitter.us,
                              link.b2a.delay.us + link.b2a.jitter.us);
  }
  const auto book =
      std::make_shared<const RouteBook>(topo.metric, std::move(book_nodes), std::move(book_links));
  plan.routes = book;

  // The largest rate and round trip in the lab size every namespace's TCP buffers.
  uint64_t max_rate = 0;
  for (const Link& l : topo.links) {
    for (const DirectionParams* d : {&l.a2b, &l.b2a}) {
      max_rate = std::max({max_rate, d->rate.bits_per_s, schedule_max_rate(d->schedule)});
    }
  }
  const auto one_way_us = book->path_delays_us(worst_delays);
  int64_t max_rtt_us = 0;
  for (size_t s = 0; s < topo.nodes.size(); ++s) {
    for (size_t d = s + 1; d < topo.nodes.size(); ++d) {
      max_rtt_us = std::max(max_rtt_us, one_way_us(s, d) + one_way_us(d, s));
    }
  }
  const uint64_t tcp_max =
      std::clamp<uint64_t>(2 * (max_rate / 8) * static_cast<uint64_t>(max_rtt_us) / 1000000,
                           kDefaultTcpBufferMax, kTcpBufferCap);
  // Linux's own minimum and default sizes, with the maximum raised.
  const std::string tcp_rmem = "4096 131072 " + std::to_string(tcp_max);
  const std::string tcp_wmem = "4096 16384 " + std::to_string(tcp_max);

  for (const auto& n : plan.nodes) plan.steps.push_back(CreateNamespace{n.ns});
  for (const auto& n : plan.nodes) {
    plan.steps.push_back(SetLinkUp{n.ns, "lo"});
    plan.steps.push_back(AddAddress{n.ns, "lo", Ipv4Prefix{n.address, 32}});
    plan.steps.push_back(SetSysctl{n.ns, "net/ipv4/ip_forward", "1"});
    plan.steps.push_back(SetSysctl{n.ns, "net/ipv4/tcp_rmem", tcp_rmem});
    plan.steps.push_back(SetSysctl{n.ns, "net/ipv4/tcp_wmem", tcp_wmem});
  }

  std::map<std::string, PlannedDelayLine> delay_lines;
  std::map<std::string, Kernel::IngressHooks> hooks;  // by receiving namespace
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
    const auto direction = [&](const PlannedNode& from, const PlannedNode& to,
                               const std::string& dev, const std::string& rx_dev,
                               const DirectionParams& p, bool b2a) {
      PlannedDirection d{from.name, to.name,         from.ns,
                         dev,       to.ns,           rx_dev,
                         p,         size_shaping(p), direction_stream(l, b2a),
                         -1,        std::nullopt};
      if (use_netem && impaired(p)) d.netem = IngressNetem{ifb_name(l, from.name), size_netem(p)};
      plan.has_schedules =
          plan.has_schedules || p.schedule.kind != Schedule::Kind::kNone || !p.faults.empty();
      if (!use_netem && impaired(p)) {
        d.queue = static_cast<int>(d.stream);
        auto& line = delay_lines[to.name];
        line.node = to.name;
        line.ns = to.ns;
        line.queues.push_back({static_cast<uint16_t>(d.queue), p.delay.us, p.jitter.us,
                               topo.seed ^ (d.stream * 0x9e3779b97f4a7c15ULL), p.reorder,
                               p.burst_loss});
      }
      return d;
    };
    pl.a2b = direction(a, b, pl.if_a, pl.if_b, link.a2b, false);
    pl.b2a = direction(b, a, pl.if_b, pl.if_a, link.b2a, true);
    const Ipv4Prefix addr_a{Ipv4Address{pl.subnet.address.value + 1}, 30};
    const Ipv4Prefix addr_b{Ipv4Address{pl.subnet.address.value + 2}, 30};
    plan.steps.push_back(CreateVeth{a.ns, pl.if_a, b.ns, pl.if_b});
    plan.steps.push_back(SetLinkUp{a.ns, pl.if_a});
    plan.steps.push_back(SetLinkUp{b.ns, pl.if_b});
    plan.steps.push_back(AddAddress{a.ns, pl.if_a, addr_a});
    plan.steps.push_back(AddAddress{b.ns, pl.if_b, addr_b});
    plan.steps.push_back(ShapeEgress{a.ns, pl.if_a, pl.a2b.shaping});
    plan.steps.push_back(ShapeEgress{b.ns, pl.if_b, pl.b2a.shaping});
    for (const PlannedDirection* d : {&pl.a2b, &pl.b2a}) {
      if (d->netem) plan.steps.push_back(AddIngressNetem{d->rx_ns, d->rx_dev, *d->netem});
    }
    for (const PlannedDirection* d : {&pl.a2b, &pl.b2a}) {
      if (d->queue >= 0) {
        hooks[d->rx_ns][d->rx_dev] =
            IngressDelay{static_cast<uint16_t>(d->queue), d->params.loss.value};
      }
    }
    plan.links.push_back(pl);
  }
  for (auto& [node, line] : delay_lines) plan.delay_lines.push_back(line);
  for (auto& [ns, h] : hooks) plan.steps.push_back(AddIngressHooks{ns, h});

  for (size_t src = 0; src < plan.nodes.size(); ++src) {
    auto routes = book->kernel_routes_from(src);
    if (!routes.empty()) plan.steps.push_back(AddRoutes{plan.nodes[src].ns, std::move(routes)});
  }
  if (!topo.cross_traffic.empty()) {
    std::vector<std::string> namespaces, addresses;
    for (const auto& n : plan.nodes) {
      namespaces.push_back(n.ns);
      addresses.push_back(n.address.str());
    }
    plan.traffic = plan_cross_traffic(topo, namespaces, addresses, *book);
    // Every device a link arrives through, in every node: the traffic is counted at each
    // hop it crosses.
    std::map<std::string, std::vector<std::string>> devs;
    for (const auto& l : plan.links) {
      devs[l.a2b.rx_ns].push_back(l.a2b.rx_dev);
      devs[l.b2a.rx_ns].push_back(l.b2a.rx_dev);
    }
    for (auto& [ns, d] : devs) {
      plan.steps.push_back(AddTrafficCounters{
          ns, Kernel::TrafficCounters{kCrossTrafficFirstPort, kCrossTrafficLastPort, d}});
    }
  }
  for (const auto& l : plan.links) {
    for (const PlannedDirection* d : {&l.a2b, &l.b2a}) {
      const auto& q = d->shaping.queue;
      if (q.unit == QueueLimit::Unit::kBytes && q.limit < kGsoPacketBytes) {
        plan.notes.push_back("queue of " + d->from + "->" + d->to + " (" + std::to_string(q.limit) +
                             " bytes) is smaller than one GSO packet as a qdisc counts it (" +
                             std::to_string(kGsoPacketBytes) + "): TCP will stall on it");
      }
    }
  }
  if (!plan.delay_lines.empty()) {
    plan.notes.push_back("delay, jitter and loss: " + plan.backend_reason);
  }
  return plan;
}

}  // namespace testbed
