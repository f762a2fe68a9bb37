#include "netns/fake_kernel.h"

#include <algorithm>

namespace testbed {

void FakeKernel::mutate(const std::string& op) {
  const int n = ++calls_[op];
  if (auto it = failures_.find(op); it != failures_.end() && it->second == n) {
    throw KernelError(op + ": injected failure");
  }
  ++mutations_;
}

FakeKernel::Namespace& FakeKernel::ns_or_throw(const std::string& op, const std::string& ns) {
  auto it = namespaces_.find(ns);
  if (it == namespaces_.end()) throw KernelError(op + "(" + ns + "): no such namespace");
  return it->second;
}

FakeKernel::Link& FakeKernel::link_or_throw(const std::string& op, const std::string& ns,
                                            const std::string& dev) {
  auto& n = ns_or_throw(op, ns);
  auto it = n.links.find(dev);
  if (it == n.links.end()) throw KernelError(op + "(" + dev + "@" + ns + "): no such device");
  return it->second;
}

bool FakeKernel::namespace_exists(const std::string& ns) {
  return namespaces_.count(ns) > 0;
}

uint64_t FakeKernel::namespace_inode(const std::string& ns) {
  auto it = namespaces_.find(ns);
  return it == namespaces_.end() ? 0 : it->second.inode;
}

uint64_t FakeKernel::create_namespace(const std::string& ns) {
  if (namespaces_.count(ns)) throw KernelError("create_namespace(" + ns + "): exists");
  mutate("create_namespace");
  Namespace n;
  n.inode = next_inode_++;
  n.links["lo"] = Link{};  // every namespace is born with a loopback device, down
  namespaces_[ns] = n;
  return n.inode;
}

void FakeKernel::delete_namespace(const std::string& ns) {
  auto& n = ns_or_throw("delete_namespace", ns);
  mutate("delete_namespace");
  // A veth pair dies with either end, as in the kernel.
  for (const auto& [dev, link] : n.links) {
    if (!link.peer_ns.empty() && namespaces_.count(link.peer_ns)) {
      namespaces_[link.peer_ns].links.erase(link.peer_dev);
    }
  }
  namespaces_.erase(ns);
}

bool FakeKernel::link_exists(const std::string& ns, const std::string& dev) {
  auto it = namespaces_.find(ns);
  return it != namespaces_.end() && it->second.links.count(dev) > 0;
}

void FakeKernel::create_veth(const std::string& ns_a, const std::string& if_a,
                             const std::string& ns_b, const std::string& if_b) {
  auto& a = ns_or_throw("create_veth", ns_a);
  auto& b = ns_or_throw("create_veth", ns_b);
  if (a.links.count(if_a) || b.links.count(if_b)) {
    throw KernelError("create_veth(" + if_a + "): exists");
  }
  if (if_a.size() > 15 || if_b.size() > 15) throw KernelError("create_veth: name too long");
  mutate("create_veth");
  a.links[if_a].peer_ns = ns_b;
  a.links[if_a].peer_dev = if_b;
  b.links[if_b].peer_ns = ns_a;
  b.links[if_b].peer_dev = if_a;
}

void FakeKernel::create_vxlan(const std::string& underlay_ns, const std::string& ns,
                              const std::string& dev, const VxlanSpec& spec) {
  // The host's own namespace ("") is not modelled; a named underlay must hold the device.
  if (!underlay_ns.empty()) link_or_throw("create_vxlan", underlay_ns, spec.underlay_dev);
  auto& n = ns_or_throw("create_vxlan", ns);
  if (n.links.count(dev)) throw KernelError("create_vxlan(" + dev + "): exists");
  if (dev.size() > 15) throw KernelError("create_vxlan: name too long");
  mutate("create_vxlan");
  n.links[dev].vxlan = spec;
}

void FakeKernel::delete_link(const std::string& ns, const std::string& dev) {
  Link link = link_or_throw("delete_link", ns, dev);
  mutate("delete_link");
  namespaces_[ns].links.erase(dev);
  if (!link.peer_ns.empty()) namespaces_[link.peer_ns].links.erase(link.peer_dev);
}

bool FakeKernel::link_is_up(const std::string& ns, const std::string& dev) {
  return link_exists(ns, dev) && namespaces_[ns].links[dev].up;
}

void FakeKernel::set_link_up(const std::string& ns, const std::string& dev, bool up) {
  auto& link = link_or_throw("set_link_up", ns, dev);
  mutate("set_link_up");
  link.up = up;
}

bool FakeKernel::has_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  return link_exists(ns, dev) && namespaces_[ns].links[dev].addresses.count(addr) > 0;
}

void FakeKernel::add_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  auto& link = link_or_throw("add_address", ns, dev);
  if (link.addresses.count(addr)) throw KernelError("add_address(" + addr.str() + "): exists");
  mutate("add_address");
  link.addresses.insert(addr);
}

void FakeKernel::delete_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) {
  auto& link = link_or_throw("delete_address", ns, dev);
  if (!link.addresses.count(addr)) throw KernelError("delete_address(" + addr.str() + "): absent");
  mutate("delete_address");
  link.addresses.erase(addr);
}

std::string FakeKernel::sysctl(const std::string& ns, const std::string& key) {
  auto& n = ns_or_throw("sysctl", ns);
  auto it = n.sysctls.find(key);
  // A new namespace starts with the kernel's defaults; "0" stands in for all of them.
  return it == n.sysctls.end() ? "0" : it->second;
}

void FakeKernel::set_sysctl(const std::string& ns, const std::string& key,
                            const std::string& value) {
  auto& n = ns_or_throw("set_sysctl", ns);
  mutate("set_sysctl");
  n.sysctls[key] = value;
}

std::vector<RouteSpec> FakeKernel::routes(const std::string& ns) {
  return namespace_exists(ns) ? namespaces_[ns].routes : std::vector<RouteSpec>{};
}

void FakeKernel::add_routes(const std::string& ns, const std::vector<RouteSpec>& routes) {
  ns_or_throw("add_routes", ns);
  mutate("add_routes");
  auto& installed = namespaces_[ns].routes;
  // All or nothing, as the real kernel's batch is made to be: checked before any is added.
  for (size_t i = 0; i < routes.size(); ++i) {
    const RouteSpec& route = routes[i];
    auto& link = link_or_throw("add_routes", ns, route.dev);
    // The kernel refuses a gateway that is not on one of the device's subnets, and a route
    // through a device that is down ("Network is down" / "Nexthop has invalid gateway").
    if (!link.up)
      throw KernelError("add_routes(" + route.dst.str() + "): device " + route.dev + " is down");
    const bool onlink = std::any_of(link.addresses.begin(), link.addresses.end(),
                                    [&](const Ipv4Prefix& p) { return p.contains(route.via); });
    if (!onlink)
      throw KernelError("add_routes(" + route.dst.str() + "): invalid gateway " + route.via.str());
    const auto same_dst = [&](const RouteSpec& r) { return r.dst == route.dst; };
    if (std::any_of(installed.begin(), installed.end(), same_dst) ||
        std::any_of(routes.begin(), routes.begin() + static_cast<long>(i), same_dst)) {
      throw KernelError("add_routes(" + route.dst.str() + "): exists");
    }
  }
  installed.insert(installed.end(), routes.begin(), routes.end());
}

void FakeKernel::replace_routes(const std::string& ns, const std::vector<RouteSpec>& routes) {
  ns_or_throw("replace_routes", ns);
  mutate("replace_routes");
  auto& installed = namespaces_[ns].routes;
  for (const RouteSpec& route : routes) {
    const auto& link = link_or_throw("replace_routes", ns, route.dev);
    if (!link.up) {
      throw KernelError("replace_routes(" + route.dst.str() + "): device " + route.dev +
                        " is down");
    }
    const auto same = std::find_if(installed.begin(), installed.end(),
                                   [&](const RouteSpec& r) { return r.dst == route.dst; });
    if (same == installed.end()) {
      installed.push_back(route);
    } else {
      *same = route;
    }
  }
}

void FakeKernel::withdraw_routes(const std::string& ns, const std::vector<Ipv4Prefix>& dsts) {
  auto& routes = ns_or_throw("withdraw_routes", ns).routes;
  mutate("withdraw_routes");
  std::erase_if(routes, [&](const RouteSpec& r) {
    return std::find(dsts.begin(), dsts.end(), r.dst) != dsts.end();
  });
}

void FakeKernel::delete_routes(const std::string& ns) {
  auto& routes = ns_or_throw("delete_routes", ns).routes;
  mutate("delete_routes");
  routes.clear();
}

std::optional<Kernel::Received> FakeKernel::received(const std::string& ns,
                                                     const std::string& dev) {
  if (!link_exists(ns, dev)) return std::nullopt;
  return namespaces_[ns].links[dev].received;
}

std::optional<ShapingState> FakeKernel::shaping(const std::string& ns, const std::string& dev) {
  if (!link_exists(ns, dev) || !namespaces_[ns].links[dev].shaping) return std::nullopt;
  const auto& link = namespaces_[ns].links[dev];
  ShapingState state{*link.shaping};
  if (link.cut) state.config.queue = QueueLimit{QueueLimit::Unit::kBytes, 0};  // as the kernel's
  return state;
}

void FakeKernel::set_shaping(const std::string& ns, const std::string& dev, const RateShaping& s) {
  auto& link = link_or_throw("set_shaping", ns, dev);
  mutate("set_shaping");
  link.shaping = s;
}

Kernel::IngressHooks FakeKernel::ingress_delays(const std::string& ns) {
  IngressHooks hooks;
  if (!namespace_exists(ns)) return hooks;
  for (const auto& [dev, link] : namespaces_[ns].links) {
    if (link.ingress) hooks[dev] = *link.ingress;
  }
  return hooks;
}

void FakeKernel::set_ingress_delays(const std::string& ns, const IngressHooks& hooks) {
  for (const auto& [dev, d] : hooks) link_or_throw("set_ingress_delays", ns, dev);
  mutate("set_ingress_delays");
  for (const auto& [dev, d] : hooks) namespaces_[ns].links[dev].ingress = d;
}

void FakeKernel::remove_ingress_delays(const std::string& ns,
                                       const std::vector<std::string>& devs) {
  for (const auto& dev : devs) {
    if (!link_or_throw("remove_ingress_delays", ns, dev).ingress) {
      throw KernelError("remove_ingress_delays(" + dev + "): absent");
    }
  }
  mutate("remove_ingress_delays");
  for (const auto& dev : devs) namespaces_[ns].links[dev].ingress.reset();
}

void FakeKernel::set_traffic_counters(const std::string& ns, const TrafficCounters& c) {
  for (const auto& dev : c.devs) link_or_throw("set_traffic_counters", ns, dev);
  mutate("set_traffic_counters");
  namespaces_[ns].traffic_counters = c;
}

void FakeKernel::remove_traffic_counters(const std::string& ns) {
  if (!namespace_exists(ns) || !namespaces_[ns].traffic_counters)
    throw KernelError("remove_traffic_counters(" + ns + "): absent");
  mutate("remove_traffic_counters");
  namespaces_[ns].traffic_counters.reset();
  namespaces_[ns].traffic_counts.clear();
}

std::map<std::string, Kernel::TrafficCount> FakeKernel::traffic_counts(const std::string& ns) {
  std::map<std::string, TrafficCount> out;
  if (!namespace_exists(ns) || !namespaces_[ns].traffic_counters) return out;
  for (const auto& dev : namespaces_[ns].traffic_counters->devs) {
    const auto it = namespaces_[ns].traffic_counts.find(dev);
    out[dev] = it == namespaces_[ns].traffic_counts.end() ? TrafficCount{} : it->second;
  }
  return out;
}

void FakeKernel::count_traffic(const std::string& ns, const std::string& dev, uint64_t bytes,
                               bool cross) {
  auto& n = namespaces_.at(ns);
  const auto& devs = n.traffic_counters.value().devs;
  if (std::find(devs.begin(), devs.end(), dev) == devs.end())
    throw KernelError("count_traffic(" + dev + "): no counter");
  TrafficCount& c = n.traffic_counts[dev];
  (cross ? c.packets : c.other_packets) += 1;
  (cross ? c.bytes : c.other_bytes) += bytes;
}

void FakeKernel::remove_shaping(const std::string& ns, const std::string& dev) {
  auto& link = link_or_throw("remove_shaping", ns, dev);
  mutate("remove_shaping");
  link.shaping.reset();
}

bool FakeKernel::is_cut(const std::string& ns, const std::string& dev) {
  return link_exists(ns, dev) && namespaces_[ns].links[dev].cut;
}

void FakeKernel::set_cut(const std::string& ns, const std::string& dev, bool cut,
                         const RateShaping& shaping) {
  auto& link = link_or_throw("set_cut", ns, dev);
  if (!link.shaping) throw KernelError("set_cut(" + dev + "@" + ns + "): no TBF to cut");
  mutate("set_cut");
  if (link.cut && !cut) link.shaping->queue = shaping.queue;  // the leaf made again
  link.cut = cut;
}

std::optional<NetemParams> FakeKernel::ingress_netem(const std::string& ns,
                                                     const std::string& ifb) {
  if (!link_exists(ns, ifb)) return std::nullopt;
  return namespaces_[ns].links[ifb].netem;
}

void FakeKernel::set_ingress_netem(const std::string& ns, const std::string& dev,
                                   const IngressNetem& n) {
  Link& rx = link_or_throw("set_ingress_netem", ns, dev);
  mutate("set_ingress_netem");
  Link& ifb = namespaces_[ns].links[n.ifb];  // created when missing, up, like the real one
  ifb.up = true;
  ifb.netem = n.netem;
  rx.redirect = n.ifb;
}

void FakeKernel::remove_ingress_netem(const std::string& ns, const std::string& dev,
                                      const std::string& ifb) {
  ns_or_throw("remove_ingress_netem", ns);
  mutate("remove_ingress_netem");
  auto& links = namespaces_[ns].links;
  if (const auto it = links.find(dev); it != links.end()) it->second.redirect.clear();
  links.erase(ifb);
}

}  // namespace testbed
