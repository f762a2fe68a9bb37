// The narrow interface between the testbed and the kernel: one call per kind of object and
// verb, each acting inside one named network namespace. LibnlKernel implements it with
// netlink; FakeKernel models it in memory for tests that need no root.
//
// Every mutating call throws KernelError naming the failed call; queries do not mutate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "netns/burst_loss.h"
#include "netns/ipv4.h"
#include "netns/kernel_error.h"

namespace testbed {

struct QueueLimit {
  enum class Unit { kPackets, kBytes };
  Unit unit = Unit::kPackets;
  uint32_t limit = 0;
  bool operator==(const QueueLimit&) const = default;
};

// Delay, jitter and loss applied by netem (where the kernel has sch_netem). Its limit is in
// packets: it must hold every packet in flight through the delay, and nothing queues there.
struct NetemParams {
  uint32_t delay_us = 0;
  uint32_t jitter_us = 0;
  double loss = 0;  // fraction in [0, 1]
  uint32_t limit_packets = 0;
  // Jitter without reordering, as the delay line does by default: a packet never leaves
  // before the one ahead of it (tc_objects.cpp says how netem is made to keep order).
  bool keep_order = true;
  // Bursty loss instead of `loss` (burst_loss.h): netem's Gilbert-Elliott model. Like
  // order keeping it is not read back (libnl does not parse netem's loss models).
  std::optional<GilbertElliott> burst;
  bool operator==(const NetemParams&) const = default;
};

// Rate shaping of one interface's egress: a token bucket (TBF) at the root, and a FIFO leaf
// under it, the link's queue. Delay and loss are applied on the receiving side, by either
// backend. Why TBF and not HTB's root, class and leaf (tc_objects.h): every filter block a
// qdisc or class binds goes into one machine-wide list that each new block searches, and
// HTB binds two per device where TBF binds none.
struct RateShaping {
  uint64_t rate_bytes_per_s = 0;
  // The bucket: the most that may leave at once after an idle moment. TBF splits a GSO
  // super-packet larger than its bucket into frames, so the planner sizes it to hold one
  // (planner.cpp, size_shaping).
  uint32_t burst_bytes = 0;
  QueueLimit queue;
  bool operator==(const RateShaping&) const = default;
};

// The receiving side of one link direction where the kernel has sch_netem: the device's tc
// ingress hands every IPv4 packet (matchall, mirred) to an IFB device in the same namespace,
// whose root netem qdisc delays, jitters and drops it; IFB then delivers it as if received
// on the device. Rate and queue stay in the sender's TBF, as with the delay line, so both
// backends queue alike. netem as the sender's leaf instead (the textbook arrangement)
// counted its queue in packets, where a packet is a GSO super-packet of up to 45 frames:
// measured under Debian's 6.1 kernel at 50 Mbit/s and 30 ms each way, a loaded ping saw
// 305 ms median RTT with a limit sized to one bandwidth-delay product, 64 ms this way.
struct IngressNetem {
  std::string ifb;  // the IFB device, in the receiving namespace
  NetemParams netem;
  bool operator==(const IngressNetem&) const = default;
};

// The receiving side of one link direction, where the kernel has no netem: packets coming
// in on the device are dropped with probability `loss` (iptables statistic match) and the
// rest handed to NFQUEUE `queue`, where the delay line holds them. Receive timestamps are
// cleared on the way in (see rx_timestamp_reset.h).
struct IngressDelay {
  uint16_t queue = 0;
  double loss = 0;
  bool operator==(const IngressDelay&) const = default;
};

struct ShapingState {
  // As read back (burst is not compared: the kernel stores ticks). A cut port (set_cut)
  // reads as a queue of 0 bytes: it holds nothing.
  RateShaping config;
  uint64_t sent_bytes = 0;
  uint64_t sent_packets = 0;
  uint64_t dropped_packets = 0;
  // What waits in the queue now: the health monitor's backlog signal.
  uint32_t backlog_bytes = 0;
};

// The routing protocol number of the testbed's routes (`ip route` shows "proto 116"): not
// one of those rtnetlink.h or iproute2's rt_protos assign, so nothing else claims it.
constexpr uint8_t kRouteProtocol = 116;

struct RouteSpec {
  Ipv4Prefix dst;
  Ipv4Address via;
  std::string dev;
  Ipv4Address src;  // preferred source: the node's own address, so replies find their way back
  auto operator<=>(const RouteSpec&) const = default;
};

// One end of a link between hosts (docs/multihost.md): a VXLAN device whose UDP socket
// lives in the underlay namespace (the host's network) and whose device lives in a node's
// namespace, carrying the link's Ethernet frames to the peer host.
struct VxlanSpec {
  uint32_t vni = 0;          // the same at both ends: the link's uid
  Ipv4Address local;         // this host's underlay address
  Ipv4Address remote;        // the peer host's underlay address
  uint16_t port = 0;         // UDP destination port, the same at both ends
  std::string underlay_dev;  // the host's interface toward the peer; empty: as routed
  bool operator==(const VxlanSpec&) const = default;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  virtual bool namespace_exists(const std::string& ns) = 0;
  // The namespace's identity (nsfs inode), 0 when absent; cleanup compares it with the one
  // recorded at creation so that it never deletes a same-named namespace made by others.
  virtual uint64_t namespace_inode(const std::string& ns) = 0;
  // Creates /run/netns/NS; returns the namespace's inode number, its identity for cleanup.
  virtual uint64_t create_namespace(const std::string& ns) = 0;
  virtual void delete_namespace(const std::string& ns) = 0;

  virtual bool link_exists(const std::string& ns, const std::string& dev) = 0;
  virtual void create_veth(const std::string& ns_a, const std::string& if_a,
                           const std::string& ns_b, const std::string& if_b) = 0;
  // Creates a VXLAN device in `ns` whose tunnel runs in `underlay_ns` (a named namespace,
  // or "" for the namespace this process runs in: the host's own network).
  virtual void create_vxlan(const std::string& underlay_ns, const std::string& ns,
                            const std::string& dev, const VxlanSpec& spec) = 0;
  virtual void delete_link(const std::string& ns, const std::string& dev) = 0;
  virtual bool link_is_up(const std::string& ns, const std::string& dev) = 0;
  virtual void set_link_up(const std::string& ns, const std::string& dev, bool up) = 0;

  virtual bool has_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;
  virtual void add_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;
  virtual void delete_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;

  // Network sysctls are per namespace: `key` is relative to /proc/sys, e.g.
  // "net/ipv4/ip_forward". Values are compared and written as text.
  virtual std::string sysctl(const std::string& ns, const std::string& key) = 0;
  virtual void set_sysctl(const std::string& ns, const std::string& key,
                          const std::string& value) = 0;

  // Routes the testbed installs carry its own routing protocol number (kRouteProtocol), so
  // that they are found and removed by ownership, whatever else lives in the namespace (a
  // pod's own routes, made by its CNI). routes(): the testbed's routes in `ns`.
  virtual std::vector<RouteSpec> routes(const std::string& ns) = 0;
  // Installs every route, the requests batched; all or nothing: when the kernel refuses one,
  // those installed by the call are deleted and KernelError names the first refused.
  virtual void add_routes(const std::string& ns, const std::vector<RouteSpec>& routes) = 0;
  virtual void delete_routes(const std::string& ns) = 0;  // every route the testbed owns
  // Installs each route in place of the one to the same destination (or as a new one),
  // batched as add_routes is: a convergence around a dead link. Not all or nothing: a
  // refused route leaves those before it replaced, and KernelError names it (the next
  // convergence, from the same state, replaces the rest).
  virtual void replace_routes(const std::string& ns, const std::vector<RouteSpec>& routes) = 0;
  // Removes the testbed's routes to exactly these prefixes (an aggregate a convergence no
  // longer needs); those not there are skipped. Throws KernelError.
  virtual void withdraw_routes(const std::string& ns, const std::vector<Ipv4Prefix>& dsts) = 0;

  virtual std::optional<ShapingState> shaping(const std::string& ns, const std::string& dev) = 0;
  // Between these, reads may share one dump per namespace: a sample of every direction
  // (status, the exporter, the health check) reads a hub's namespace once, not once per
  // device (ReadSnapshot below). Nothing may be changed in between.
  virtual void begin_read_snapshot() {}
  virtual void end_read_snapshot() {}
  // Within a snapshot: makes these namespaces' dumps now, so that the reads that follow
  // answer from memory. For a reader with other work to do meanwhile on another thread
  // (`status` parses the plan); nothing else may use this object until it returns. A
  // namespace that does not exist is passed over.
  virtual void read_ahead(const std::vector<std::string>& namespaces) { (void)namespaces; }
  // What interface `dev` of `ns` received so far, by its own counters (as `ip -s link`
  // shows them): whole frames. nullopt when it does not exist.
  struct Received {
    uint64_t packets = 0, bytes = 0;
  };
  virtual std::optional<Received> received(const std::string& ns, const std::string& dev) = 0;
  // Creates the TBF and its leaf, or changes them in place (no queue flush). On a cut port
  // the leaf stays cut: set_cut makes it again when the port is up.
  virtual void set_shaping(const std::string& ns, const std::string& dev, const RateShaping& s) = 0;
  virtual void remove_shaping(const std::string& ns, const std::string& dev) = 0;
  // A cut link direction (a fault): the device's TBF drops everything it is given (its leaf
  // is an empty FIFO, libnl_cut.cpp), and what its queue held when the cut came is dropped too, as
  // a cut fibre loses what the port was about to send. Needs the TBF (set_shaping). Up again, the
  // leaf is made from `shaping`, the direction's shaping as it is now.
  virtual bool is_cut(const std::string& ns, const std::string& dev) = 0;
  virtual void set_cut(const std::string& ns, const std::string& dev, bool cut,
                       const RateShaping& shaping) = 0;

  // The delay hooks of a namespace, by device. Several devices at once, because installing
  // them costs a process start (iptables-restore) per call, not per device.
  using IngressHooks = std::map<std::string, IngressDelay>;
  virtual IngressHooks ingress_delays(const std::string& ns) = 0;
  // Installs each hook, or changes its loss in place.
  virtual void set_ingress_delays(const std::string& ns, const IngressHooks& hooks) = 0;
  virtual void remove_ingress_delays(const std::string& ns,
                                     const std::vector<std::string>& devs) = 0;

  // Counters of the lab's cross traffic (TCP and UDP to or from ports [first_port,
  // last_port], lab/cross_traffic_plan.h) as it arrives over each of `devs`: iptables rules
  // in a chain TBXT of the mangle table, jumped to from INPUT and FORWARD, so a packet is
  // counted once it has crossed the link (after the delay line's loss), whether it ends here
  // or is forwarded. Counting by port at every hop, because a mark does not survive the
  // crossing into the next namespace and the job's own traffic uses other ports. The rest
  // of what arrives is counted by a rule after them (`other`): both in the same unit, IP
  // packets as they arrive after GRO merged them, which the sender's TBF counts otherwise
  // (a frame's headers per segment: 4.6% more for full TCP segments).
  struct TrafficCounters {
    uint16_t first_port = 0, last_port = 0;
    std::vector<std::string> devs;
    bool operator==(const TrafficCounters&) const = default;
  };
  struct TrafficCount {
    uint64_t packets = 0, bytes = 0;              // the cross traffic
    uint64_t other_packets = 0, other_bytes = 0;  // everything else (the job's)
  };
  virtual void set_traffic_counters(const std::string& ns, const TrafficCounters& c) = 0;
  virtual void remove_traffic_counters(const std::string& ns) = 0;
  // What each device's counter holds (empty when there are none).
  virtual std::map<std::string, TrafficCount> traffic_counts(const std::string& ns) = 0;

  // netem on the receiving side (IngressNetem): the netem of `ifb` in `ns`, if there is one.
  virtual std::optional<NetemParams> ingress_netem(const std::string& ns,
                                                   const std::string& ifb) = 0;
  // Creates what is missing (the IFB device, its netem, the redirect from `dev`), or
  // changes the netem in place (no flush: packets in flight keep their release times).
  virtual void set_ingress_netem(const std::string& ns, const std::string& dev,
                                 const IngressNetem& n) = 0;
  virtual void remove_ingress_netem(const std::string& ns, const std::string& dev,
                                    const std::string& ifb) = 0;

  std::optional<IngressDelay> ingress_delay(const std::string& ns, const std::string& dev) {
    const IngressHooks hooks = ingress_delays(ns);
    const auto it = hooks.find(dev);
    return it == hooks.end() ? std::nullopt : std::optional<IngressDelay>(it->second);
  }
  void set_ingress_delay(const std::string& ns, const std::string& dev, const IngressDelay& d) {
    set_ingress_delays(ns, {{dev, d}});
  }
};

// Kernel::begin_read_snapshot for a scope.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Kernel& kernel) : kernel_(kernel) { kernel_.begin_read_snapshot(); }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot() { kernel_.end_read_snapshot(); }

 private:
  Kernel& kernel_;
};

}  // namespace testbed
