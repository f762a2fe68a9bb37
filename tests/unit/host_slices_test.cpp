// One lab over several hosts: the computed placement, the placement file, and the plan cut
// into per-host slices (controller/hosts/).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "controller/hosts/host_placement.h"
#include "controller/hosts/plan_slices.h"
#include "controller/lab/applier.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "cross_host_links.h"
#include "netns/fake_kernel.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan plan_of(const std::string& profile) {
  return make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/" + profile), false);
}

// Each node on a host of its own: how Kubernetes with meshnet runs a lab (a pod per node).
HostPlacement one_host_per_node(const Plan& plan) {
  HostPlacement p;
  p.source = "a host per node";
  for (const auto& n : plan.nodes) {
    p.hosts.push_back("h-" + n.name);
    p.host_of[n.name] = "h-" + n.name;
  }
  return p;
}

uint64_t rate_between_hosts(const Plan& plan, const HostPlacement& p) {
  uint64_t cut = 0;
  for (const auto& l : plan.links) {
    if (p.host_of.at(l.a) != p.host_of.at(l.b))
      cut += direction_peak_bits_per_s(l.a2b) + direction_peak_bits_per_s(l.b2a);
  }
  return cut;
}

TEST(HostPlacement, ComputedPutsEveryNodeOnOneHostAndLeavesNoHostEmpty) {
  for (const std::string profile : {"internet2.yaml", "b4.yaml", "gaia-11.yaml"}) {
    const Plan plan = plan_of(profile);
    for (size_t hosts = 1; hosts <= plan.nodes.size(); ++hosts) {
      const HostPlacement p = compute_host_placement(plan, hosts);
      ASSERT_EQ(p.hosts.size(), hosts);
      EXPECT_EQ(p.host_of.size(), plan.nodes.size()) << profile << " on " << hosts;
      for (const auto& h : p.hosts) {
        EXPECT_FALSE(p.nodes_on(h).empty()) << profile << " on " << hosts << ": " << h;
      }
    }
    EXPECT_THROW(compute_host_placement(plan, plan.nodes.size() + 1), std::invalid_argument);
    EXPECT_THROW(compute_host_placement(plan, 0), std::invalid_argument);
  }
}

TEST(HostPlacement, ComputedKeepsMoreTrafficInsideHostsThanDealingNodesOut) {
  // Dealing nodes out in turn is what a placement that ignores the links would do.
  for (const std::string profile : {"internet2.yaml", "b4.yaml", "gaia-11.yaml"}) {
    const Plan plan = plan_of(profile);
    for (size_t hosts : {2u, 3u, 4u}) {
      HostPlacement dealt;
      for (size_t h = 0; h < hosts; ++h) dealt.hosts.push_back("host" + std::to_string(h + 1));
      for (size_t i = 0; i < plan.nodes.size(); ++i)
        dealt.host_of[plan.nodes[i].name] = dealt.hosts[i % hosts];
      const HostPlacement computed = compute_host_placement(plan, hosts);
      EXPECT_LT(rate_between_hosts(plan, computed), rate_between_hosts(plan, dealt))
          << profile << " on " << hosts << " hosts";
    }
  }
}

TEST(HostPlacement, ComputedBalancesTheShapedAndDelayedTraffic) {
  // Within half an even share: the greedy merge allows 15% over it, and the grouping of
  // whole nodes adds at most one node's traffic on these WANs.
  for (const std::string profile : {"internet2.yaml", "b4.yaml"}) {
    const Plan plan = plan_of(profile);
    for (size_t hosts : {2u, 3u}) {
      const auto loads = host_loads(plan, compute_host_placement(plan, hosts));
      uint64_t total = 0, most = 0;
      for (const auto& l : loads) {
        total += l.shaped_bits_per_s + l.delayed_bits_per_s;
        most = std::max(most, l.shaped_bits_per_s + l.delayed_bits_per_s);
      }
      EXPECT_LE(static_cast<double>(most), 1.5 * static_cast<double>(total) / hosts)
          << profile << " on " << hosts;
    }
  }
}

// The plan's steps as lines, counted: slices must add up to exactly these.
std::multiset<std::string> described(const std::vector<Step>& steps) {
  std::multiset<std::string> out;
  for (const Step& s : steps) out.insert(describe_step(s));
  return out;
}

TEST(PlanSlices, AreAPartitionOfThePlan) {
  for (const std::string profile : {"internet2.yaml", "b4.yaml"}) {
    const Plan plan = plan_of(profile);
    for (const HostPlacement& placement :
         {compute_host_placement(plan, 3), one_host_per_node(plan)}) {
      const auto slices = slice_plan(plan, placement);
      ASSERT_EQ(slices.size(), placement.hosts.size());
      // The union of the slices, each cross-host veth put back together from its two halves.
      std::map<std::string, std::string> node_of_ns;
      for (const auto& n : plan.nodes) node_of_ns[n.ns] = n.name;
      std::multiset<std::string> united;
      std::map<std::string, int> halves;  // "ns dev" of each end, by the veth they belong to
      size_t nodes = 0, expected = 0;
      for (const auto& s : slices) {
        nodes += s.plan.nodes.size();
        for (const Step& step : s.plan.steps) {
          if (const auto* e = std::get_if<ExpectInterface>(&step)) {
            ++expected;
            // The end's own namespace is a node of this slice; its peer's is elsewhere.
            EXPECT_EQ(placement.host_of.at(node_of_ns.at(e->ns)), s.host);
            EXPECT_NE(e->peer_host, s.host);
            const bool a_side = e->ns < e->peer_ns;
            const Step whole = a_side ? Step{CreateVeth{e->ns, e->dev, e->peer_ns, e->peer_dev}}
                                      : Step{CreateVeth{e->peer_ns, e->peer_dev, e->ns, e->dev}};
            ++halves[describe_step(whole)];
            continue;
          }
          united.insert(describe_step(step));
        }
        EXPECT_EQ(s.expected_interfaces,
                  static_cast<size_t>(std::count_if(
                      s.plan.steps.begin(), s.plan.steps.end(),
                      [](const Step& st) { return std::holds_alternative<ExpectInterface>(st); })));
      }
      EXPECT_EQ(nodes, plan.nodes.size());
      // Every cross-host veth appears as exactly two halves, and nowhere whole.
      size_t cross = 0;
      for (const auto& l : plan.links)
        cross += placement.host_of.at(l.a) != placement.host_of.at(l.b);
      EXPECT_EQ(expected, 2 * cross) << profile;
      std::multiset<std::string> whole = described(plan.steps);
      for (const Step& step : plan.steps) {
        const auto* v = std::get_if<CreateVeth>(&step);
        if (!v) continue;
        const std::string d = describe_step(step);
        const Step swapped = CreateVeth{v->ns_b, v->if_b, v->ns_a, v->if_a};
        const int n = halves.count(d) ? halves[d] : halves[describe_step(swapped)];
        if (n == 0) continue;  // on one host: among the united steps
        EXPECT_EQ(n, 2) << d;
        whole.erase(whole.find(d));
      }
      EXPECT_EQ(united, whole) << profile << " over " << placement.source;
    }
  }
}

TEST(PlanSlices, ShapeOnTheSendersHostAndDelayOnTheReceivers) {
  const Plan plan = plan_of("internet2.yaml");
  const HostPlacement placement = compute_host_placement(plan, 3);
  const auto slices = slice_plan(plan, placement);
  std::map<std::string, const Plan*> by_host;
  for (const auto& s : slices) by_host[s.host] = &s.plan;
  const auto has = [](const Plan& p, const Step& wanted) {
    const std::string d = describe_step(wanted);
    return std::any_of(p.steps.begin(), p.steps.end(),
                       [&](const Step& s) { return describe_step(s) == d; });
  };
  for (const auto& l : plan.links) {
    for (const PlannedDirection* d : {&l.a2b, &l.b2a}) {
      const Plan& sender = *by_host.at(placement.host_of.at(d->from));
      EXPECT_TRUE(has(sender, ShapeEgress{d->ns, d->dev, d->shaping})) << d->from << "->" << d->to;
      const Plan& receiver = *by_host.at(placement.host_of.at(d->to));
      EXPECT_TRUE(std::any_of(receiver.delay_lines.begin(), receiver.delay_lines.end(),
                              [&](const PlannedDelayLine& line) { return line.node == d->to; }))
          << "the delay line of " << d->to << " runs on its own host";
    }
  }
}

TEST(PlanSlices, AppliedOnTheirHostsBuildWhatTheWholePlanBuilds) {
  const Plan plan = plan_of("internet2.yaml");
  FakeKernel whole;
  Applier(whole).apply(plan);

  const HostPlacement placement = compute_host_placement(plan, 3);
  FakeKernel spread;
  make_cross_host_links(spread, plan, placement);
  for (const auto& s : slice_plan(plan, placement)) Applier(spread).apply(s.plan);

  ASSERT_EQ(spread.namespaces().size(), whole.namespaces().size());
  for (const auto& [name, ns] : whole.namespaces()) {
    const auto& other = spread.namespaces().at(name);
    EXPECT_EQ(other.sysctls, ns.sysctls) << name;
    EXPECT_EQ(other.routes, ns.routes) << name;
    ASSERT_EQ(other.links.size(), ns.links.size()) << name;
    for (const auto& [dev, link] : ns.links) {
      const auto& o = other.links.at(dev);
      EXPECT_EQ(o.peer_ns, link.peer_ns) << dev << "@" << name;
      EXPECT_EQ(o.up, link.up) << dev << "@" << name;
      EXPECT_EQ(o.addresses, link.addresses) << dev << "@" << name;
      EXPECT_EQ(o.shaping, link.shaping) << dev << "@" << name;
      EXPECT_EQ(o.ingress, link.ingress) << dev << "@" << name;
    }
  }
}

TEST(PlanSlices, ASliceWithoutItsExpectedInterfaceFailsNamingItAndChangesNothing) {
  const Plan plan = plan_of("internet2.yaml");
  const HostPlacement placement = compute_host_placement(plan, 2);
  const PlanSlice slice = slice_for_host(plan, placement, "host1");
  ASSERT_GT(slice.expected_interfaces, 0u);
  FakeKernel kernel;
  try {
    Applier(kernel).apply(slice.plan);
    FAIL() << "applied without its cross-host links";
  } catch (const ApplyError& e) {
    EXPECT_NE(std::string(e.what()).find("made outside the testbed"), std::string::npos)
        << e.what();
    EXPECT_TRUE(e.rollback_errors().empty());
  }
  EXPECT_TRUE(kernel.namespaces().empty()) << "the namespaces it made are gone again";
}

TEST(PlanSlices, RollbackLeavesWhatOthersMade) {
  const Plan plan = plan_of("internet2.yaml");
  const HostPlacement placement = compute_host_placement(plan, 2);
  const PlanSlice slice = slice_for_host(plan, placement, "host1");
  FakeKernel kernel;
  make_cross_host_links(kernel, plan, placement);
  kernel.fail_on("add_routes", 3);
  EXPECT_THROW(Applier(kernel).apply(slice.plan), ApplyError);
  size_t kept = 0;
  for (const Step& step : slice.plan.steps) {
    if (const auto* e = std::get_if<ExpectInterface>(&step)) {
      EXPECT_TRUE(kernel.link_exists(e->ns, e->dev)) << e->dev << "@" << e->ns;
      EXPECT_FALSE(kernel.shaping(e->ns, e->dev).has_value()) << "its shaping was undone";
      ++kept;
    }
  }
  EXPECT_EQ(kept, slice.expected_interfaces);
  for (const auto& [name, ns] : kernel.namespaces()) EXPECT_TRUE(ns.routes.empty()) << name;
}

TEST(PlanSlices, AnUnknownHostIsNamed) {
  const Plan plan = plan_of("internet2.yaml");
  try {
    slice_for_host(plan, compute_host_placement(plan, 2), "host9");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("host1, host2"), std::string::npos) << e.what();
  }
}

TEST(HostPlacementFile, ReadsHostsAndTheirNodes) {
  const Plan plan = plan_of("tiny/line4.yaml");
  const HostPlacement p = parse_host_placement_text(
      "hosts:\n  east: [n1, n2]\n  west-1:\n    - n3\n    - n4\n", "p.yaml", plan);
  EXPECT_EQ(p.hosts, (std::vector<std::string>{"east", "west-1"}));
  EXPECT_EQ(p.host_of.at("n2"), "east");
  EXPECT_EQ(p.host_of.at("n4"), "west-1");
}

std::string first_error(const std::string& text) {
  const Plan plan = plan_of("tiny/line4.yaml");
  try {
    parse_host_placement_text(text, "p.yaml", plan);
  } catch (const ValidationError& e) {
    return e.diagnostics().front().str();
  }
  return "no error";
}

TEST(HostPlacementFile, ErrorsNameFileLineAndField) {
  EXPECT_EQ(
      first_error("hosts:\n  east: [n1, n2, n9]\n  west: [n3, n4]\n"),
      "p.yaml:2:18: hosts.east: no node 'n9' in " + TESTBED_PROFILES_DIR + "/tiny/line4.yaml");
  EXPECT_EQ(first_error("hosts:\n  east: [n1, n2]\n  west: [n2, n3, n4]\n"),
            "p.yaml:3:10: hosts.west: node 'n2' is already on host east");
  EXPECT_EQ(first_error("hosts:\n  east: [n1, n2]\n  west: [n3]\n"),
            "p.yaml:2:3: hosts: every node needs a host; none for n4");
  EXPECT_EQ(first_error("hosts:\n  East_1: [n1, n2, n3, n4]\n").substr(0, 23),
            "p.yaml:2:3: hosts: 'Eas");
  EXPECT_EQ(first_error("host:\n  east: [n1]\n"),
            "p.yaml:1:1: unknown key 'host' at the top level (did you mean 'hosts'?)");
  EXPECT_EQ(first_error("hosts:\n  east: []\n"),
            "p.yaml:2:9: hosts.east: a non-empty list of nodes");
  EXPECT_EQ(first_error("hosts: [\n"), "p.yaml:2:1: YAML syntax: end of sequence flow not found");
  const std::string two = "hosts:\n  east: [n1, n2]\n  west: [n3, n4]\n";
  EXPECT_EQ(first_error(two + "underlay:\n  east: {address: 10.0.0.1}\n"),
            "p.yaml:5:3: underlay: every host needs one, or none does; none for west");
  EXPECT_EQ(first_error(two + "underlay:\n  east: {address: 10.0.0.256}\n  west: {address: x}\n"),
            "p.yaml:5:19: underlay.east.address: '10.0.0.256' is no IPv4 address");
  EXPECT_EQ(first_error(two + "underlay:\n  north: {address: 10.0.0.1}\n"),
            "p.yaml:5:3: underlay.north: no host 'north' under hosts");
  EXPECT_EQ(first_error(two + "vxlan_port: 70000\n"),
            "p.yaml:4:13: vxlan_port: a UDP port (1-65535), not '70000'");
}

// Plain hosts: with every host's underlay address given, a link between hosts is a VXLAN
// the slice makes at each end, with one id (the link's uid) and the two addresses crossed.
TEST(PlanSlices, WithAnUnderlayLinksBetweenHostsAreVxlansTheSlicesMake) {
  const Plan plan = plan_of("internet2.yaml");
  HostPlacement placement = compute_host_placement(plan, 3);
  placement.underlay = {{"host1", {Ipv4Address{0x0A000001}, "eth0"}},
                        {"host2", {Ipv4Address{0x0A000002}, ""}},
                        {"host3", {Ipv4Address{0x0A000003}, "eth1"}}};
  placement.vxlan_port = 4790;
  std::map<uint32_t, std::vector<std::pair<std::string, CreateVxlan>>> ends;  // by vni
  FakeKernel kernel;
  for (const auto& s : slice_plan(plan, placement)) {
    EXPECT_EQ(s.expected_interfaces, 0u);
    size_t made = 0;
    for (const Step& step : s.plan.steps) {
      if (const auto* v = std::get_if<CreateVxlan>(&step)) {
        ends[v->spec.vni].emplace_back(s.host, *v);
        EXPECT_EQ(v->spec.local, placement.underlay.at(s.host).address);
        EXPECT_EQ(v->spec.underlay_dev, placement.underlay.at(s.host).dev);
        EXPECT_EQ(v->spec.port, 4790);
        ++made;
      }
    }
    EXPECT_EQ(made, s.vxlan_interfaces);
    Applier(kernel).apply(s.plan);  // each host's slice, the tunnels included
  }
  size_t cut = 0;
  for (const auto& l : plan.links) cut += placement.host_of.at(l.a) != placement.host_of.at(l.b);
  ASSERT_EQ(ends.size(), cut);
  for (const auto& [vni, pair] : ends) {
    ASSERT_EQ(pair.size(), 2u) << "vni " << vni;
    const auto& [host_a, a] = pair[0];
    const auto& [host_b, b] = pair[1];
    EXPECT_NE(host_a, host_b);
    EXPECT_EQ(a.spec.remote, b.spec.local);
    EXPECT_EQ(b.spec.remote, a.spec.local);
    EXPECT_EQ(a.peer_host, host_b);
    const auto& link = plan.links.at(vni - 1);  // the uid meshnet would give it
    EXPECT_TRUE((a.dev == link.if_a && b.dev == link.if_b) ||
                (a.dev == link.if_b && b.dev == link.if_a));
    EXPECT_EQ(kernel.namespaces().at(a.ns).links.at(a.dev).vxlan, a.spec);
  }
}

}  // namespace
}  // namespace testbed
