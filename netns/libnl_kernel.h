// The real kernel, through libnl. Netlink messages carry no namespace selector, so each
// namespace gets its own socket, opened from inside it (see NetnsScope).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "netns/kernel.h"
#include "netns/named_netns.h"
#include "netns/nft_delay_hooks.h"
#include "netns/nl_objects.h"
#include "netns/proc_sys.h"

namespace testbed {

class LibnlKernel : public Kernel {
 public:
  LibnlKernel() = default;
  LibnlKernel(const LibnlKernel&) = delete;
  LibnlKernel& operator=(const LibnlKernel&) = delete;

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
  // The ingress hook is netlink (an ingress qdisc, a bpf filter) plus mangle rules: one
  // nf_tables transaction (nft_delay_hooks.h), or iptables-restore inside the namespace
  // where iptables is the legacy one.
  IngressHooks ingress_delays(const std::string& ns) override;
  void set_ingress_delays(const std::string& ns, const IngressHooks& hooks) override;
  void set_traffic_counters(const std::string& ns, const TrafficCounters& c) override;
  void remove_traffic_counters(const std::string& ns) override;
  std::map<std::string, TrafficCount> traffic_counts(const std::string& ns) override;
  void remove_ingress_delays(const std::string& ns, const std::vector<std::string>& devs) override;
  // libnl_ingress_netem.cpp
  std::optional<NetemParams> ingress_netem(const std::string& ns, const std::string& ifb) override;
  void set_ingress_netem(const std::string& ns, const std::string& dev,
                         const IngressNetem& n) override;
  void remove_ingress_netem(const std::string& ns, const std::string& dev,
                            const std::string& ifb) override;
  using Kernel::ingress_delay;
  using Kernel::set_ingress_delay;

  // A shaping read dumps every qdisc of the namespace (the kernel dumps no single
  // device's): within a snapshot each namespace's dump is made once. Without, a hub's
  // 2000 devices made `status` of a star quadratic (54 s at 2000 leaves), and the exporter
  // spent a whole core.
  // Devices likewise: one dump of a namespace's links answers whether each exists, its
  // index and its counters (a request per device and question was 9 a node of a 1000-node
  // lab's `status`).
  void begin_read_snapshot() override {
    qdisc_snapshot_.clear();
    link_snapshot_.clear();
    snapshot_reads_ = true;
  }
  void end_read_snapshot() override {
    qdisc_snapshot_.clear();
    link_snapshot_.clear();
    snapshot_reads_ = false;
  }
  void read_ahead(const std::vector<std::string>& namespaces) override;

  // For probes beyond the interface (doctor): the socket of a namespace.
  nl_sock* socket(const std::string& ns) { return context(ns).sock.get(); }
  int ifindex(const std::string& ns, const std::string& dev);  // throws when there is none

 private:
  // The namespace's qdiscs: the snapshot's dump when one is open, else a fresh dump that
  // `own` keeps.
  nl_cache* qdiscs_of(const std::string& ns, nl::Cache& own);
  // The qdisc `handle` of device `index` in `qdiscs` (from qdiscs_of), or null. libnl
  // searches a cache from its start: a hub's 10,000 ports each searching its 20,000 qdiscs
  // was quadratic, so a snapshot's dump is indexed.
  nl::Qdisc find_qdisc(const std::string& ns, nl_cache* qdiscs, int index, uint32_t handle);
  // Within a snapshot, the device `dev` of the namespace's one dump (null when it has none);
  // outside one, nullopt: ask the kernel.
  std::optional<nl::Link> snapshot_link(const std::string& ns, const std::string& dev);

  struct Context {
    nl::Socket sock;                     // bound to the namespace
    std::map<std::string, int> ifindex;  // devices seen; cleared when one is deleted
  };
  Context& context(const std::string& ns);
  // The namespace, opened for the moment it is needed (entering it, or naming it to the
  // kernel): kept open per namespace, it was a second descriptor each.
  static FileDescriptor netns_fd(const std::string& ns);
  // /proc/sys as `ns` sees it, through a procfs instance of its own (proc_sys.h).
  const ProcSys& proc_sys_of(const std::string& ns);
  std::string proc_sys_ns_;
  std::unique_ptr<ProcSys> proc_sys_;
  nl::Link get_link(const std::string& ns, const std::string& dev);
  // The index of `dev` in `ns` as the kernel has it now; nullopt when there is no such device.
  std::optional<int> device_index(const std::string& ns, const std::string& dev);
  nl::Route route_object(const std::string& ns, const RouteSpec& route);
  // Route requests in batches (libnl_routes.cpp), with these netlink flags.
  void send_routes(const std::string& ns, const std::vector<RouteSpec>& routes, int flags,
                   bool all_or_nothing);
  nl::Addr addr_object(const std::string& ns, const std::string& dev, Ipv4Prefix addr);

  std::map<std::string, std::unique_ptr<Context>> contexts_;
  // The delay hooks of the namespaces this object created, as it installed them: nothing
  // else can have added any, so installing them needs no `iptables -S` first (a process
  // start per namespace: 7% of a 1000-node `up`'s CPU).
  std::map<std::string, IngressHooks> own_hooks_;
  // Whether the delay hooks are written over nf_tables from this process
  // (nft_delay_hooks.h), or by iptables-restore where iptables is the legacy one.
  bool iptables_nft_ = iptables_is_nft();
  bool snapshot_reads_ = false;
  // By namespace, when snapshot_reads_: each dump and its index.
  struct QdiscDump {
    nl::Cache cache;
    std::map<std::pair<int, uint32_t>, rtnl_qdisc*> by_port;  // (ifindex, handle)
  };
  struct LinkDump {
    nl::Cache cache;
    std::unordered_map<std::string, rtnl_link*> by_name;
  };
  std::map<std::string, QdiscDump> qdisc_snapshot_;
  std::map<std::string, LinkDump> link_snapshot_;
};

}  // namespace testbed
