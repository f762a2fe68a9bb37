#include "controller/hosts/host_placement.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <stdexcept>

#include "controller/topology/schedule.h"

namespace testbed {

// Host names end up in Kubernetes node selectors and in messages: DNS labels (RFC 1123).
constexpr size_t kMaxHostName = 63;

bool valid_host_name(const std::string& s) {
  if (s.empty() || s.size() > kMaxHostName || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'))
      return false;
  }
  return true;
}

namespace {

// A host may carry this much more than an even share of the load when that keeps a heavy
// link inside it. 15% keeps the hosts within one link's weight of each other on the
// bundled WANs while still keeping their heaviest links whole (docs/multihost.md).
constexpr double kBalanceSlack = 0.15;

// The work each node puts on its host: shaping what it sends, delaying what it receives.
std::map<std::string, uint64_t> node_costs(const Plan& plan) {
  std::map<std::string, uint64_t> cost;
  for (const auto& n : plan.nodes) cost[n.name] = 0;
  for (const auto& l : plan.links) {
    for (const PlannedDirection* d : {&l.a2b, &l.b2a}) {
      const uint64_t rate = direction_peak_bits_per_s(*d);
      cost[d->from] += rate;
      if (d->queue >= 0) cost[d->to] += rate;
    }
  }
  return cost;
}

// Union-find over node indices, each group carrying its cost.
struct Groups {
  std::vector<size_t> parent;
  std::vector<uint64_t> cost;
  size_t find(size_t i) { return parent[i] == i ? i : parent[i] = find(parent[i]); }
};

// The greedy merge decides link by link and cannot undo a choice. Afterwards, move single
// nodes to the host they exchange the most traffic with while that lowers the rate between
// hosts, keeps the receiving host within capacity and leaves no host empty. Each move lowers
// the cut, so this ends; the pass limit bounds the time on large labs (the bundled WANs
// settle in two or three passes).
constexpr int kMaxImprovementPasses = 20;

void improve_cut(const Plan& plan, const std::map<std::string, size_t>& index,
                 const std::map<std::string, uint64_t>& costs, double capacity,
                 std::vector<uint64_t>& load, std::vector<size_t>& host_of) {
  const size_t n = plan.nodes.size();
  std::vector<std::vector<std::pair<size_t, uint64_t>>> adjacent(n);  // neighbour, rate
  for (const auto& l : plan.links) {
    const uint64_t rate = direction_peak_bits_per_s(l.a2b) + direction_peak_bits_per_s(l.b2a);
    adjacent[index.at(l.a)].push_back({index.at(l.b), rate});
    adjacent[index.at(l.b)].push_back({index.at(l.a), rate});
  }
  std::vector<size_t> count(load.size(), 0);
  for (size_t h : host_of) ++count[h];
  for (int pass = 0; pass < kMaxImprovementPasses; ++pass) {
    bool moved = false;
    for (size_t i = 0; i < n; ++i) {
      std::vector<uint64_t> towards(load.size(), 0);  // rate to neighbours on each host
      for (const auto& [j, rate] : adjacent[i]) towards[host_of[j]] += rate;
      const size_t from = host_of[i];
      const uint64_t cost = costs.at(plan.nodes[i].name);
      size_t best = from;
      for (size_t h = 0; h < load.size(); ++h) {
        if (towards[h] > towards[best] && static_cast<double>(load[h] + cost) <= capacity) best = h;
      }
      if (best == from || count[from] == 1) continue;
      load[from] -= cost;
      load[best] += cost;
      --count[from];
      ++count[best];
      host_of[i] = best;
      moved = true;
    }
    if (!moved) break;
  }
}

}  // namespace

std::vector<std::string> HostPlacement::nodes_on(const std::string& host) const {
  std::vector<std::string> out;
  for (const auto& [node, h] : host_of) {
    if (h == host) out.push_back(node);
  }
  return out;
}

uint64_t direction_peak_bits_per_s(const PlannedDirection& d) {
  return std::max(d.params.rate.bits_per_s, schedule_max_rate(d.params.schedule));
}

HostPlacement compute_host_placement(const Plan& plan, size_t host_count) {
  const size_t n = plan.nodes.size();
  if (host_count == 0 || host_count > n) {
    throw std::invalid_argument("cannot spread " + std::to_string(n) + " nodes over " +
                                std::to_string(host_count) + " hosts: give 1 to " +
                                std::to_string(n) + " hosts");
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; ++i) index[plan.nodes[i].name] = i;
  const auto costs = node_costs(plan);
  Groups g{std::vector<size_t>(n), std::vector<uint64_t>(n)};
  std::iota(g.parent.begin(), g.parent.end(), 0);
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    g.cost[i] = costs.at(plan.nodes[i].name);
    total += g.cost[i];
  }
  const double capacity = static_cast<double>(total) / host_count * (1 + kBalanceSlack);

  // Heaviest links first, so that what stays inside a host is what would cost most between.
  std::vector<size_t> order(plan.links.size());
  std::iota(order.begin(), order.end(), 0);
  const auto link_rate = [&](size_t l) {
    return direction_peak_bits_per_s(plan.links[l].a2b) +
           direction_peak_bits_per_s(plan.links[l].b2a);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return link_rate(x) > link_rate(y); });
  size_t groups = n;
  for (size_t l : order) {
    if (groups == host_count) break;  // merging further would leave a host empty
    const size_t a = g.find(index.at(plan.links[l].a));
    const size_t b = g.find(index.at(plan.links[l].b));
    if (a == b || static_cast<double>(g.cost[a] + g.cost[b]) > capacity) continue;
    g.parent[b] = a;
    g.cost[a] += g.cost[b];
    --groups;
  }

  // Largest group first onto the least loaded host (then the one with fewest nodes).
  std::map<size_t, std::vector<size_t>> members;
  for (size_t i = 0; i < n; ++i) members[g.find(i)].push_back(i);
  std::vector<size_t> roots;
  for (const auto& [root, m] : members) roots.push_back(root);
  std::stable_sort(roots.begin(), roots.end(), [&](size_t x, size_t y) {
    return std::make_pair(g.cost[x], members[x].size()) >
           std::make_pair(g.cost[y], members[y].size());
  });
  HostPlacement p;
  std::vector<uint64_t> load(host_count, 0);
  std::vector<std::vector<size_t>> on(host_count);
  for (size_t h = 0; h < host_count; ++h) p.hosts.push_back("host" + std::to_string(h + 1));
  for (size_t root : roots) {
    size_t best = 0;
    for (size_t h = 1; h < host_count; ++h) {
      if (std::make_pair(load[h], on[h].size()) < std::make_pair(load[best], on[best].size()))
        best = h;
    }
    load[best] += g.cost[root];
    for (size_t i : members[root]) on[best].push_back(i);
  }
  // Every host gets a group: there are at least host_count groups (merging stops there), and
  // an empty host is the least loaded until it has one.
  std::vector<size_t> host_of(n);
  for (size_t h = 0; h < host_count; ++h) {
    for (size_t i : on[h]) host_of[i] = h;
  }
  improve_cut(plan, index, costs, capacity, load, host_of);
  for (size_t i = 0; i < n; ++i) p.host_of[plan.nodes[i].name] = p.hosts[host_of[i]];
  p.source = "computed: heaviest links kept inside a host within " +
             std::to_string(static_cast<int>(kBalanceSlack * 100)) +
             "% of an even share of shaped and delayed traffic";
  return p;
}

std::vector<HostLoad> host_loads(const Plan& plan, const HostPlacement& placement) {
  std::map<std::string, HostLoad> by_host;
  for (const auto& h : placement.hosts) by_host[h].host = h;
  for (const auto& [node, h] : placement.host_of) ++by_host[h].nodes;
  for (const auto& l : plan.links) {
    const std::string& ha = placement.host_of.at(l.a);
    const std::string& hb = placement.host_of.at(l.b);
    for (const PlannedDirection* d : {&l.a2b, &l.b2a}) {
      const uint64_t rate = direction_peak_bits_per_s(*d);
      by_host[placement.host_of.at(d->from)].shaped_bits_per_s += rate;
      if (d->queue >= 0) by_host[placement.host_of.at(d->to)].delayed_bits_per_s += rate;
    }
    if (ha != hb) {
      const uint64_t both = direction_peak_bits_per_s(l.a2b) + direction_peak_bits_per_s(l.b2a);
      for (const std::string* h : {&ha, &hb}) {
        ++by_host[*h].links_to_other_hosts;
        by_host[*h].cross_bits_per_s += both;
      }
    }
  }
  std::vector<HostLoad> out;
  for (const auto& h : placement.hosts) out.push_back(by_host[h]);
  return out;
}

nlohmann::json host_placement_to_json(const Plan& plan, const HostPlacement& placement) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostLoad& load : host_loads(plan, placement)) {
    hosts.push_back({{"host", load.host},
                     {"nodes", placement.nodes_on(load.host)},
                     {"shaped_bits_per_s", load.shaped_bits_per_s},
                     {"delayed_bits_per_s", load.delayed_bits_per_s},
                     {"links_to_other_hosts", load.links_to_other_hosts},
                     {"cross_bits_per_s", load.cross_bits_per_s}});
    if (const auto u = placement.underlay.find(load.host); u != placement.underlay.end()) {
      hosts.back()["underlay"] = {{"address", u->second.address.str()}, {"dev", u->second.dev}};
    }
    if (const auto k = placement.keys.find(load.host); k != placement.keys.end())
      hosts.back()["curve_public_key"] = k->second;
  }
  size_t cut = 0;
  for (const auto& l : plan.links) cut += placement.host_of.at(l.a) != placement.host_of.at(l.b);
  // Who makes the links between hosts: the testbed (VXLANs over the underlay) or others.
  return {{"source", placement.source},
          {"hosts", hosts},
          {"links_between_hosts", cut},
          {"links_between_hosts_made_by",
           placement.underlay.empty() ? "others (meshnet, a CNI)" : "the testbed (VXLAN)"},
          {"vxlan_port", placement.vxlan_port}};
}

nlohmann::json placement_record(const HostPlacement& placement) {
  nlohmann::json hosts = nlohmann::json::object();
  for (const auto& h : placement.hosts) {
    nlohmann::json entry = {{"nodes", placement.nodes_on(h)}};
    if (const auto k = placement.keys.find(h); k != placement.keys.end()) entry["key"] = k->second;
    if (const auto u = placement.underlay.find(h); u != placement.underlay.end())
      entry["address"] = u->second.address.str();
    hosts[h] = entry;
  }
  return {{"hosts", hosts}};
}

}  // namespace testbed
