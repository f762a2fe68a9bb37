// An in-memory kernel for unit tests. It enforces the preconditions the real kernel does
// (a veth needs both namespaces, an address needs its link, a route needs its device up and
// a gateway on one of its subnets), so tests catch wrong step order, and it can be told to
// fail the Nth call of an operation to exercise rollback.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "netns/kernel.h"

namespace testbed {

class FakeKernel : public Kernel {
 public:
  struct Link {
    std::string peer_ns, peer_dev;  // empty for loopback
    bool up = false;
    std::set<Ipv4Prefix> addresses;
    std::optional<RateShaping> shaping;
    std::optional<IngressDelay> ingress;
    std::optional<VxlanSpec> vxlan;    // a tunnel end (peer_ns empty)
    std::optional<NetemParams> netem;  // an IFB device's root netem
    std::string redirect;              // the IFB device every received packet goes to
    bool cut = false;                  // a fault: the TBF drops everything
    Received received;                 // what a test says arrived
  };
  struct Namespace {
    uint64_t inode = 0;
    std::map<std::string, Link> links;
    std::map<std::string, std::string> sysctls;
    std::vector<RouteSpec> routes;
    std::optional<TrafficCounters> traffic_counters;
    std::map<std::string, TrafficCount> traffic_counts;  // what a test says passed
  };

  // Makes the `nth` (1-based) future call of `op` (e.g. "add_routes") throw KernelError.
  void fail_on(const std::string& op, int nth) { failures_[op] = calls_[op] + nth; }
  // Mutating calls made so far; queries are not counted.
  int mutations() const { return mutations_; }
  const std::map<std::string, Namespace>& namespaces() const { return namespaces_; }

  bool namespace_exists(const std::string& ns) override;
  uint64_t namespace_inode(const std::string& ns) override;
  uint64_t create_namespace(const std::string& ns) override;
  void delete_namespace(const std::string& ns) override;
  bool link_exists(const std::string& ns, const std::string& dev) override;
  void create_veth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                   const std::string& if_b) override;
  void create_vxlan(const std::string& underlay_ns, const std::string& ns, const std::string& dev,
                    const VxlanSpec& spec) override;
  void delete_link(const std::string& ns, const std::string& dev) override;
  bool link_is_up(const std::string& ns, const std::string& dev) override;
  void set_link_up(const std::string& ns, const std::string& dev, bool up) override;
  bool has_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) override;
  void add_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) override;
  void delete_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) override;
  std::string sysctl(const std::string& ns, const std::string& key) override;
  void set_sysctl(const std::string& ns, const std::string& key, const std::string& value) override;
  std::vector<RouteSpec> routes(const std::string& ns) override;
  void add_routes(const std::string& ns, const std::vector<RouteSpec>& routes) override;
  void delete_routes(const std::string& ns) override;
  void replace_routes(const std::string& ns, const std::vector<RouteSpec>& routes) override;
  void withdraw_routes(const std::string& ns, const std::vector<Ipv4Prefix>& dsts) override;
  std::optional<ShapingState> shaping(const std::string& ns, const std::string& dev) override;
  std::optional<Received> received(const std::string& ns, const std::string& dev) override;
  void set_shaping(const std::string& ns, const std::string& dev, const RateShaping& s) override;
  void remove_shaping(const std::string& ns, const std::string& dev) override;
  bool is_cut(const std::string& ns, const std::string& dev) override;
  void set_cut(const std::string& ns, const std::string& dev, bool cut,
               const RateShaping& shaping) override;
  IngressHooks ingress_delays(const std::string& ns) override;
  void set_ingress_delays(const std::string& ns, const IngressHooks& hooks) override;
  void remove_ingress_delays(const std::string& ns, const std::vector<std::string>& devs) override;
  void set_traffic_counters(const std::string& ns, const TrafficCounters& c) override;
  void remove_traffic_counters(const std::string& ns) override;
  std::map<std::string, TrafficCount> traffic_counts(const std::string& ns) override;
  // Traffic as a test has it cross `dev` of `ns` (its counter must exist): the cross
  // traffic's, or (`cross` false) the rest.
  void count_traffic(const std::string& ns, const std::string& dev, uint64_t bytes,
                     bool cross = true);
  std::optional<NetemParams> ingress_netem(const std::string& ns, const std::string& ifb) override;
  void set_ingress_netem(const std::string& ns, const std::string& dev,
                         const IngressNetem& n) override;
  void remove_ingress_netem(const std::string& ns, const std::string& dev,
                            const std::string& ifb) override;
  using Kernel::ingress_delay;
  using Kernel::set_ingress_delay;

 private:
  void mutate(const std::string& op);
  Namespace& ns_or_throw(const std::string& op, const std::string& ns);
  Link& link_or_throw(const std::string& op, const std::string& ns, const std::string& dev);

  std::map<std::string, Namespace> namespaces_;
  std::map<std::string, int> failures_;
  std::map<std::string, int> calls_;
  int mutations_ = 0;
  uint64_t next_inode_ = 4026531000;  // the range real nsfs inodes live in
};

}  // namespace testbed
