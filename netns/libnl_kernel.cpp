#include "netns/libnl_kernel.h"

#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/tbf.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include "netns/mangle_table.h"
#include "netns/netns_exec.h"
#include "netns/open_files_limit.h"
#include "netns/proc_sys.h"
#include "netns/rx_timestamp_reset.h"
#include "netns/tc_objects.h"

namespace testbed {
namespace {

std::string where(const std::string& ns, const std::string& dev) {
  return dev + "@" + ns;
}

}  // namespace

nl::Address nl::ipv4(Ipv4Address a, int prefix_length) {
  const uint32_t be = htonl(a.value);
  nl::Address addr(check_alloc(nl_addr_build(AF_INET, &be, sizeof be), "nl_addr_build"));
  nl_addr_set_prefixlen(addr.get(), prefix_length);
  return addr;
}

FileDescriptor LibnlKernel::netns_fd(const std::string& ns) {
  // "" is the namespace this process runs in (the host's network, for a VXLAN underlay).
  return ns.empty() ? open_own_netns() : open_netns(ns);
}

LibnlKernel::Context& LibnlKernel::context(const std::string& ns) {
  auto it = contexts_.find(ns);
  if (it != contexts_.end()) return *it->second;
  // One descriptor kept per namespace, its socket (the namespace itself is opened for the
  // moment it is needed: netns_fd), and room for what else is open. A lab of thousands of
  // namespaces passes a usual limit of 1024 (open_files_limit.h); one of 10,000 with a
  // descriptor more each passed this project's machines' hard limit of 20,000.
  constexpr size_t kOtherFiles = 256;  // sockets, files and pipes outside the contexts
  ensure_open_files_limit(contexts_.size() + 1 + kOtherFiles);
  auto ctx = std::make_unique<Context>();
  {
    NetnsScope inside(netns_fd(ns).get());
    ctx->sock.reset(nl::check_alloc(nl_socket_alloc(), "nl_socket_alloc"));
    nl::check(nl_connect(ctx->sock.get(), NETLINK_ROUTE), "nl_connect(" + ns + ")");
  }
  return *contexts_.emplace(ns, std::move(ctx)).first->second;
}

bool LibnlKernel::namespace_exists(const std::string& ns) {
  return netns_exists(ns);
}

uint64_t LibnlKernel::namespace_inode(const std::string& ns) {
  return netns_inode(ns);
}

uint64_t LibnlKernel::create_namespace(const std::string& ns) {
  const uint64_t inode = create_netns(ns);
  own_hooks_[ns] = {};
  // The lab's links carry IPv4 (198.18.0.0/15): devices made in the namespace from now on
  // get no IPv6 (its loopback keeps ::1). Each IPv6 device sends router solicitations,
  // duplicate-address probes and multicast reports over its shaped link, counted as
  // traffic, and the kernel's addrconf worker then competes with `up` for the RTNL lock:
  // in perf of a 10,000-leaf star's `up`, 20% waiting for that lock and 6% in the hub's
  // IPv6 routes to its 10,000 link-local prefixes (__find_rr_leaf). A kernel without IPv6
  // has no such file: nothing to turn off.
  NetnsScope inside(netns_fd(ns).get());
  const ProcSys& knobs = proc_sys_of(ns);
  const std::string key = "net/ipv6/conf/default/disable_ipv6";
  if (knobs.exists(key)) knobs.write(key, "1", ns);
  return inode;
}

void LibnlKernel::delete_namespace(const std::string& ns) {
  own_hooks_.erase(ns);
  contexts_.erase(ns);  // close our socket first: it would keep the namespace alive
  delete_netns(ns);
}

std::optional<nl::Link> LibnlKernel::snapshot_link(const std::string& ns, const std::string& dev) {
  if (!snapshot_reads_) return std::nullopt;
  auto kept = link_snapshot_.find(ns);
  if (kept == link_snapshot_.end()) {
    nl_cache* raw = nullptr;
    nl::check(rtnl_link_alloc_cache(context(ns).sock.get(), AF_UNSPEC, &raw),
              "rtnl_link_alloc_cache(" + ns + ")");
    LinkDump dump{nl::Cache(raw), {}};
    for (nl_object* o = nl_cache_get_first(raw); o; o = nl_cache_get_next(o)) {
      auto* link = reinterpret_cast<rtnl_link*>(o);
      if (const char* name = rtnl_link_get_name(link)) dump.by_name[name] = link;
    }
    kept = link_snapshot_.emplace(ns, std::move(dump)).first;
  }
  const auto it = kept->second.by_name.find(dev);
  if (it == kept->second.by_name.end()) return nl::Link();
  nl_object_get(OBJ_CAST(it->second));  // the caller's reference, as libnl's lookups give
  return nl::Link(it->second);
}

void LibnlKernel::read_ahead(const std::vector<std::string>& namespaces) {
  if (!snapshot_reads_) return;
  for (const auto& ns : namespaces) {
    if (!netns_exists(ns)) continue;
    nl::Cache unused;  // the dump is kept by the snapshot instead
    qdiscs_of(ns, unused);
  }
}

nl::Link LibnlKernel::get_link(const std::string& ns, const std::string& dev) {
  if (auto kept = snapshot_link(ns, dev); kept && *kept) return std::move(*kept);
  rtnl_link* link = nullptr;
  nl::check(rtnl_link_get_kernel(context(ns).sock.get(), 0, dev.c_str(), &link),
            "rtnl_link_get_kernel(" + where(ns, dev) + ")");
  return nl::Link(link);
}

std::optional<int> LibnlKernel::device_index(const std::string& ns, const std::string& dev) {
  // Asked of the namespace's own socket: an ioctl on any socket names devices of the
  // namespace the socket was made in. One system call, where a link request or dump makes
  // the kernel fill and libnl parse every attribute of the device (a 1000-node lab's link
  // dumps were 20% of its `status`).
  ifreq req{};
  if (dev.empty() || dev.size() >= sizeof req.ifr_name) return std::nullopt;
  std::memcpy(req.ifr_name, dev.c_str(), dev.size() + 1);
  if (ioctl(nl_socket_get_fd(context(ns).sock.get()), SIOCGIFINDEX, &req) == 0)
    return req.ifr_ifindex;
  if (errno == ENODEV) return std::nullopt;
  throw_errno("SIOCGIFINDEX(" + where(ns, dev) + ")");
}

int LibnlKernel::ifindex(const std::string& ns, const std::string& dev) {
  Context& ctx = context(ns);
  if (auto it = ctx.ifindex.find(dev); it != ctx.ifindex.end()) return it->second;
  const auto index = device_index(ns, dev);
  if (!index) throw KernelError("no device " + where(ns, dev));
  ctx.ifindex[dev] = *index;
  return *index;
}

bool LibnlKernel::link_exists(const std::string& ns, const std::string& dev) {
  if (!netns_exists(ns)) return false;
  if (const auto kept = snapshot_link(ns, dev)) return static_cast<bool>(*kept);
  rtnl_link* link = nullptr;
  const int err = rtnl_link_get_kernel(context(ns).sock.get(), 0, dev.c_str(), &link);
  nl::Link owned(link);
  if (err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV) return false;
  nl::check(err, "rtnl_link_get_kernel(" + where(ns, dev) + ")");
  return true;
}

void LibnlKernel::create_veth(const std::string& ns_a, const std::string& if_a,
                              const std::string& ns_b, const std::string& if_b) {
  // Both ends are born in their namespaces: ns_a's socket creates the pair there and the
  // peer carries ns_b's descriptor, so nothing ever appears in the host's namespace.
  nl::Link link(nl::check_alloc(rtnl_link_veth_alloc(), "rtnl_link_veth_alloc"));
  rtnl_link_set_name(link.get(), if_a.c_str());
  nl::Link peer(rtnl_link_veth_get_peer(link.get()));
  rtnl_link_set_name(peer.get(), if_b.c_str());
  const FileDescriptor peer_ns = netns_fd(ns_b);  // open until the request is sent
  rtnl_link_set_ns_fd(peer.get(), peer_ns.get());
  nl::check(rtnl_link_add(context(ns_a).sock.get(), link.get(), NLM_F_CREATE | NLM_F_EXCL),
            "rtnl_link_add(veth " + where(ns_a, if_a) + " <-> " + where(ns_b, if_b) + ")");
}

void LibnlKernel::create_vxlan(const std::string& underlay_ns, const std::string& ns,
                               const std::string& dev, const VxlanSpec& spec) {
  // Sent on the underlay's socket with the node's descriptor: the kernel binds the tunnel's
  // UDP socket in the namespace the request came from and puts the device in the node's, so
  // the node sees an Ethernet link and the host carries it.
  const std::string what = "rtnl_link_add(vxlan " + std::to_string(spec.vni) + " " +
                           where(ns, dev) + " to " + spec.remote.str() +
                           (spec.underlay_dev.empty() ? "" : " via " + spec.underlay_dev) + ")";
  nl::Link link(nl::check_alloc(rtnl_link_vxlan_alloc(), "rtnl_link_vxlan_alloc"));
  rtnl_link_set_name(link.get(), dev.c_str());
  nl::check(rtnl_link_vxlan_set_id(link.get(), spec.vni), what + ": vni");
  nl::Address local = nl::ipv4(spec.local, 32);
  nl::Address remote = nl::ipv4(spec.remote, 32);
  nl::check(rtnl_link_vxlan_set_local(link.get(), local.get()), what + ": local");
  nl::check(rtnl_link_vxlan_set_group(link.get(), remote.get()), what + ": remote");
  nl::check(rtnl_link_vxlan_set_port(link.get(), spec.port), what + ": port");
  // No device named: the kernel routes the tunnel's packets as any others of the host.
  if (!spec.underlay_dev.empty()) {
    nl::check(rtnl_link_vxlan_set_link(
                  link.get(), static_cast<uint32_t>(ifindex(underlay_ns, spec.underlay_dev))),
              what + ": underlay");
  }
  // A point-to-point tunnel: one peer, so no learning of addresses behind it.
  nl::check(rtnl_link_vxlan_disable_learning(link.get()), what + ": learning");
  const FileDescriptor node_ns = netns_fd(ns);  // open until the request is sent
  rtnl_link_set_ns_fd(link.get(), node_ns.get());
  nl::check(rtnl_link_add(context(underlay_ns).sock.get(), link.get(), NLM_F_CREATE | NLM_F_EXCL),
            what);
}

void LibnlKernel::delete_link(const std::string& ns, const std::string& dev) {
  nl::Link link = get_link(ns, dev);
  nl::check(rtnl_link_delete(context(ns).sock.get(), link.get()),
            "rtnl_link_delete(" + where(ns, dev) + ")");
  // A veth takes its peer with it, in another namespace: forget all cached indexes.
  for (auto& [name, ctx] : contexts_) ctx->ifindex.clear();
}

bool LibnlKernel::link_is_up(const std::string& ns, const std::string& dev) {
  return link_exists(ns, dev) && (rtnl_link_get_flags(get_link(ns, dev).get()) & IFF_UP);
}

void LibnlKernel::set_link_up(const std::string& ns, const std::string& dev, bool up) {
  // The device by its index alone: the request changes IFF_UP only (the change's mask), so
  // nothing else of the device need be fetched first (a link request and its parse were
  // half of each of a 1000-node `up`'s 5000 links brought up).
  nl::Link current(nl::check_alloc(rtnl_link_alloc(), "rtnl_link_alloc"));
  rtnl_link_set_ifindex(current.get(), ifindex(ns, dev));
  nl::Link change(nl::check_alloc(rtnl_link_alloc(), "rtnl_link_alloc"));
  if (up) {
    rtnl_link_set_flags(change.get(), IFF_UP);
  } else {
    rtnl_link_unset_flags(change.get(), IFF_UP);
  }
  nl::check(rtnl_link_change(context(ns).sock.get(), current.get(), change.get(), 0),
            std::string("rtnl_link_change(") + where(ns, dev) + (up ? ", up)" : ", down)"));
}

nl::Addr LibnlKernel::addr_object(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  nl::Addr a(nl::check_alloc(rtnl_addr_alloc(), "rtnl_addr_alloc"));
  rtnl_addr_set_ifindex(a.get(), ifindex(ns, dev));
  nl::Address local = nl::ipv4(addr.address, addr.length);
  nl::check(rtnl_addr_set_local(a.get(), local.get()), "rtnl_addr_set_local");
  return a;
}

bool LibnlKernel::has_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  if (!link_exists(ns, dev)) return false;
  nl_cache* raw = nullptr;
  nl::check(rtnl_addr_alloc_cache(context(ns).sock.get(), &raw),
            "rtnl_addr_alloc_cache(" + ns + ")");
  nl::Cache cache(raw);
  const int index = ifindex(ns, dev);
  nl::Address want = nl::ipv4(addr.address, addr.length);
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_ifindex(a) == index && rtnl_addr_get_family(a) == AF_INET &&
        nl_addr_cmp(rtnl_addr_get_local(a), want.get()) == 0 &&
        rtnl_addr_get_prefixlen(a) == addr.length) {
      return true;
    }
  }
  return false;
}

void LibnlKernel::add_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  nl::check(rtnl_addr_add(context(ns).sock.get(), addr_object(ns, dev, addr).get(), NLM_F_EXCL),
            "rtnl_addr_add(" + addr.str() + " " + where(ns, dev) + ")");
}

void LibnlKernel::delete_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  nl::check(rtnl_addr_delete(context(ns).sock.get(), addr_object(ns, dev, addr).get(), 0),
            "rtnl_addr_delete(" + addr.str() + " " + where(ns, dev) + ")");
}

std::string LibnlKernel::sysctl(const std::string& ns, const std::string& key) {
  // /proc/sys/net resolves to the network namespace of the thread that opens it.
  NetnsScope inside(netns_fd(ns).get());
  return proc_sys_of(ns).read(key, ns);
}

void LibnlKernel::set_sysctl(const std::string& ns, const std::string& key,
                             const std::string& value) {
  NetnsScope inside(netns_fd(ns).get());
  proc_sys_of(ns).write(key, value, ns);
}

const ProcSys& LibnlKernel::proc_sys_of(const std::string& ns) {
  // A plan sets a namespace's parameters one after another, then the next namespace's:
  // the instance of the last one is kept, and a new one made when the namespace changes.
  if (!proc_sys_ || proc_sys_ns_ != ns) {
    proc_sys_.reset();  // its dentries go with it
    proc_sys_ = std::make_unique<ProcSys>();
    proc_sys_ns_ = ns;
  }
  return *proc_sys_;
}

std::optional<Kernel::Received> LibnlKernel::received(const std::string& ns,
                                                      const std::string& dev) {
  if (!link_exists(ns, dev)) return std::nullopt;
  const nl::Link link = get_link(ns, dev);
  return Received{rtnl_link_get_stat(link.get(), RTNL_LINK_RX_PACKETS),
                  rtnl_link_get_stat(link.get(), RTNL_LINK_RX_BYTES)};
}

nl_cache* LibnlKernel::qdiscs_of(const std::string& ns, nl::Cache& own) {
  if (const auto kept = qdisc_snapshot_.find(ns); kept != qdisc_snapshot_.end())
    return kept->second.cache.get();
  nl_cache* raw = nullptr;
  nl::check(rtnl_qdisc_alloc_cache(context(ns).sock.get(), &raw),
            "rtnl_qdisc_alloc_cache(" + ns + ")");
  own.reset(raw);
  if (!snapshot_reads_) return own.get();
  QdiscDump dump{std::move(own), {}};
  for (nl_object* o = nl_cache_get_first(raw); o; o = nl_cache_get_next(o)) {
    auto* q = reinterpret_cast<rtnl_qdisc*>(o);
    dump.by_port[{rtnl_tc_get_ifindex(TC_CAST(q)), rtnl_tc_get_handle(TC_CAST(q))}] = q;
  }
  return qdisc_snapshot_.emplace(ns, std::move(dump)).first->second.cache.get();
}

nl::Qdisc LibnlKernel::find_qdisc(const std::string& ns, nl_cache* qdiscs, int index,
                                  uint32_t handle) {
  const auto kept = qdisc_snapshot_.find(ns);
  if (kept == qdisc_snapshot_.end() || kept->second.cache.get() != qdiscs)
    return nl::Qdisc(rtnl_qdisc_get(qdiscs, index, handle));
  const auto it = kept->second.by_port.find({index, handle});
  if (it == kept->second.by_port.end()) return nl::Qdisc();
  nl_object_get(OBJ_CAST(it->second));  // the caller's reference, as rtnl_qdisc_get gives
  return nl::Qdisc(it->second);
}

std::optional<ShapingState> LibnlKernel::shaping(const std::string& ns, const std::string& dev) {
  // Asked anew each time, not from the cache of indexes: a device this process did not
  // delete may have gone.
  if (!netns_exists(ns)) return std::nullopt;
  const auto found = device_index(ns, dev);
  if (!found) return std::nullopt;
  const int index = *found;
  nl::Cache own;
  nl_cache* qdiscs = qdiscs_of(ns, own);
  nl::Qdisc root = find_qdisc(ns, qdiscs, index, kTbfRootHandle);
  if (!root || std::string(rtnl_tc_get_kind(TC_CAST(root.get()))) != "tbf") return std::nullopt;
  ShapingState state;
  nl::Qdisc leaf = find_qdisc(ns, qdiscs, index, kLeafHandle);
  if (leaf) {
    read_leaf(leaf.get(), state.config);
  } else if (find_qdisc(ns, qdiscs, index, kCutLeafHandle)) {
    state.config.queue = QueueLimit{QueueLimit::Unit::kBytes, 0};  // a cut port holds nothing
  } else {
    return std::nullopt;
  }
  // libnl reads TBF's 32-bit rate field; the kernel fills it saturated above 2^32 - 1
  // bytes/s (34.4 Gbit/s), where the planner caps a direction's rate (planner.cpp).
  state.config.rate_bytes_per_s = static_cast<uint32_t>(rtnl_qdisc_tbf_get_rate(root.get()));
  state.config.burst_bytes = static_cast<uint32_t>(rtnl_qdisc_tbf_get_rate_bucket(root.get()));
  // TBF's own counters: what it sent, what waits in its leaf, and every drop below it (a
  // leaf that overflows, and a cut's empty leaf, report their drops to it).
  state.sent_bytes = rtnl_tc_get_stat(TC_CAST(root.get()), RTNL_TC_BYTES);
  state.sent_packets = rtnl_tc_get_stat(TC_CAST(root.get()), RTNL_TC_PACKETS);
  state.backlog_bytes =
      static_cast<uint32_t>(rtnl_tc_get_stat(TC_CAST(root.get()), RTNL_TC_BACKLOG));
  state.dropped_packets = rtnl_tc_get_stat(TC_CAST(root.get()), RTNL_TC_DROPS);
  return state;
}

void LibnlKernel::set_shaping(const std::string& ns, const std::string& dev, const RateShaping& s) {
  nl_sock* sock = context(ns).sock.get();
  const int index = ifindex(ns, dev);
  const std::string at = where(ns, dev);
  const auto leaf_error = [&] {
    return std::string("rtnl_qdisc_add(") + leaf_kind(s) + " leaf " + at + ")";
  };
  // A live change (the timeline, `link set`) finds the leaf in place: changed, then TBF,
  // two round trips without reading anything first. TBF hands its limit to its leaf, so the
  // leaf goes first: its change fails when the port is cut, where the limit must stay 0.
  if (rtnl_qdisc_add(sock, make_leaf(index, s).get(), 0) >= 0) {
    nl::check(send_request(sock, make_tbf_request(index, s, 0)),
              "rtnl_qdisc_change(tbf " + at + ")");
    return;
  }
  // A device without a TBF (every device of a fresh lab): made, then its leaf, without
  // reading the namespace's qdiscs (a hub's thousands) first.
  if (send_request(sock, make_tbf_request(index, s, NLM_F_CREATE | NLM_F_EXCL)) >= 0) {
    nl::check(rtnl_qdisc_add(sock, make_leaf(index, s).get(), NLM_F_CREATE | NLM_F_REPLACE),
              leaf_error());
    return;
  }
  // A TBF whose leaf did not change: cut, or of the other unit.
  if (is_cut(ns, dev)) {
    RateShaping holding_nothing = s;  // made again from the shaping then, when it is up
    holding_nothing.queue = QueueLimit{QueueLimit::Unit::kBytes, 0};
    nl::check(send_request(sock, make_tbf_request(index, holding_nothing, 0)),
              "rtnl_qdisc_change(tbf " + at + ", cut)");
    return;
  }
  // Another unit: replaced, which flushes the queue (only a change between packets and
  // bytes does this).
  nl::check(rtnl_qdisc_add(sock, make_leaf(index, s).get(), NLM_F_CREATE | NLM_F_REPLACE),
            leaf_error());
  nl::check(send_request(sock, make_tbf_request(index, s, 0)), "rtnl_qdisc_change(tbf " + at + ")");
}

void LibnlKernel::remove_shaping(const std::string& ns, const std::string& dev) {
  nl::Qdisc root(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  rtnl_tc_set_ifindex(TC_CAST(root.get()), ifindex(ns, dev));
  rtnl_tc_set_parent(TC_CAST(root.get()), TC_H_ROOT);
  rtnl_tc_set_handle(TC_CAST(root.get()), kTbfRootHandle);
  nl::check(rtnl_qdisc_delete(context(ns).sock.get(), root.get()),
            "rtnl_qdisc_delete(tbf " + where(ns, dev) + ")");
}

namespace {

std::string chain_rules(const std::string& dev, const IngressDelay& d) {
  std::ostringstream rules;
  rules << ":" << delay_chain_of(dev) << " - [0:0]\n";  // declared: created, or flushed if present
  if (d.loss > 0) {
    rules << "-A " << delay_chain_of(dev) << " -m statistic --mode random --probability "
          << std::setprecision(10) << d.loss << " -j DROP\n";
  }
  rules << "-A " << delay_chain_of(dev) << " -j NFQUEUE --queue-num " << d.queue << "\n";
  return rules.str();
}

}  // namespace

Kernel::IngressHooks LibnlKernel::ingress_delays(const std::string& ns) {
  IngressHooks hooks;
  if (!netns_exists(ns)) return hooks;
  const CommandResult r = run_in_netns(ns, {"iptables", "--wait", "-t", "mangle", "-S"});
  if (r.status != 0) throw KernelError("iptables -S (in " + ns + "): " + r.output);
  // Lines of our chains: "-A TB-dev -m statistic ... --probability P -j DROP" and
  // "-A TB-dev -j NFQUEUE --queue-num N".
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string verb, chain;
    if (!(words >> verb >> chain) || verb != "-A" || chain.rfind("TB-", 0) != 0) continue;
    IngressDelay& d = hooks[chain.substr(3)];
    for (std::string w; words >> w;) {
      if (w == "--probability") words >> d.loss;
      if (w == "--queue-num") words >> d.queue;
    }
  }
  return hooks;
}

void LibnlKernel::set_ingress_delays(const std::string& ns, const IngressHooks& hooks) {
  const auto own = own_hooks_.find(ns);
  const IngressHooks existing = own != own_hooks_.end() ? own->second : ingress_delays(ns);
  std::set<std::string> new_devs;
  for (const auto& [dev, d] : hooks) {
    if (existing.count(dev)) continue;
    attach_rx_timestamp_reset(context(ns).sock.get(), ifindex(ns, dev), false);
    new_devs.insert(dev);
  }
  // Over nf_tables from this process where iptables reads nf_tables; else a process start.
  if (iptables_nft_) {
    write_nft_delay_hooks(netns_fd(ns).get(), ns, hooks, new_devs);
  } else {
    std::string rules;
    for (const auto& [dev, d] : hooks) {
      rules += chain_rules(dev, d);
      if (new_devs.count(dev))
        rules += "-A PREROUTING -i " + dev + " -j " + delay_chain_of(dev) + "\n";
    }
    restore_mangle_rules(ns, rules, "delay hooks");
  }
  if (own != own_hooks_.end()) {
    for (const auto& [dev, d] : hooks) own->second[dev] = d;
  }
}

void LibnlKernel::remove_ingress_delays(const std::string& ns,
                                        const std::vector<std::string>& devs) {
  std::string rules;
  for (const auto& dev : devs) {
    rules += "-D PREROUTING -i " + dev + " -j " + delay_chain_of(dev) + "\n-F " +
             delay_chain_of(dev) + "\n-X " + delay_chain_of(dev) + "\n";
  }
  restore_mangle_rules(ns, rules, "remove delay hooks");
  if (const auto own = own_hooks_.find(ns); own != own_hooks_.end()) {
    for (const auto& dev : devs) own->second.erase(dev);
  }
  for (const auto& dev : devs) {
    const nl::Qdisc clsact = make_clsact(ifindex(ns, dev));
    nl::check(rtnl_qdisc_delete(context(ns).sock.get(), clsact.get()),
              "rtnl_qdisc_delete(clsact " + where(ns, dev) + ")");
  }
}

}  // namespace testbed
