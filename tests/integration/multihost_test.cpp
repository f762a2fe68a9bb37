// One lab over three hosts (docs/multihost.md), on one machine: the hosts are network
// namespaces on an underlay bridge; each link between hosts is a VXLAN made in its host's
// namespace and handed into the data center's namespace by the CNI plugins Kubernetes
// nodes run (host-device, with static addresses), read from the meshnet Topology resources
// `testbed export k8s` writes; then each host brings up its own slice with its own
// `testbed up --adopt` and its own state directory, as on separate machines.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <zmq.hpp>

#include "agent/runtime/control_channel.h"
#include "agent/transport/curve_keys.h"
#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "netns_shell.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

constexpr char kLab[] = "tbt-mh";      // over three hosts
constexpr char kOneBox[] = "tbt-mh1";  // the same lab on one box, measured beside it
const std::vector<std::string> kHosts = {"host1", "host2", "host3"};
// IANA's VXLAN port. The underlay's MTU leaves room for the 50 bytes VXLAN adds, so a
// link between hosts carries 1500-byte frames as a veth does (and TCP the same segments).
constexpr int kVxlanPort = 4789;
constexpr int kUnderlayMtu = 1550;

std::string host_ns(const std::string& host) {
  return "tb-tmh-" + host.substr(4);
}
std::string underlay_address(const std::string& host) {
  return "198.18.254." + host.substr(4);
}

// Internet2 without its 0.02% loss: at 60 ms RTT that loss alone holds one TCP flow to
// about 17 Mbit/s (Mathis et al.: MSS/RTT * 1.22/sqrt(p)), far under the links' rates,
// and would hide what is measured here, the rate the shaping gives.
std::string internet2_without_loss(const std::string& lab) {
  std::ifstream in(profile_as_lab("internet2.yaml", lab));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string path = temp_file(lab + "-lossless.yaml");
  std::ofstream(path) << std::regex_replace(ss.str(), std::regex("\n  loss: 0.02%"), "");
  return path;
}

struct CrossLink {
  std::string a_ns, a_dev, a_ip, b_ns, b_dev, b_ip;  // a on a_host, b on b_host
  std::string a_host, b_host;
};

// What the machines, kubelet and the CNI made, removed whatever the test's outcome: each
// host's slice by its own `testbed down`, then the namespaces the test made.
class ThreeHosts {
 public:
  ThreeHosts() {
    for (const auto& h : kHosts) dirs_[h] = fs::temp_directory_path() / ("tb-tmh-run-" + h);
  }
  ~ThreeHosts() {
    for (const auto& [h, dir] : dirs_) {
      if (fs::exists(dir + "/" + kLab + "/state.json")) down(h);
      fs::remove_all(dir);
    }
    LibnlKernel kernel;
    for (const auto& n : made_) {
      if (kernel.namespace_exists(n)) kernel.delete_namespace(n);
    }
  }
  const std::string& dir(const std::string& host) const { return dirs_.at(host); }
  std::map<std::string, std::string> env(const std::string& host) const {
    return {{"TESTBED_RUN_DIR", dirs_.at(host)}};
  }
  // `testbed ARGS...` on `host`: in its namespace (its network, where a VXLAN's socket
  // lives) with its own state directory, as on a machine of its own.
  Result on(const std::string& host, const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"env", "TESTBED_RUN_DIR=" + dirs_.at(host), TESTBED_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = run_in_netns(host_ns(host), argv);
    return {r.status, r.output};
  }
  Result up(const std::string& host, const std::string& profile,
            const std::string& placement = "3") const {
    std::vector<std::string> args = {"up",     profile, "--hosts",      placement,
                                     "--host", host,    "--prometheus", "off"};
    if (placement == "3") args.push_back("--adopt");  // the pods' namespaces, made by the test
    return on(host, args);
  }
  Result down(const std::string& host) const { return on(host, {"down", kLab}); }
  void make(const std::string& ns) {
    made_.push_back(ns);
    LibnlKernel().create_namespace(ns);
  }

 private:
  std::map<std::string, std::string> dirs_;
  std::vector<std::string> made_;
};

void sh(const std::string& ns, const std::vector<std::string>& argv) {
  const CommandResult r = run_in_netns(ns, argv);
  ASSERT_EQ(r.status, 0) << argv[0] << " in " << ns << ": " << r.output;
}

// The machines and their network: a bridge, each host on it with one address.
void build_underlay(ThreeHosts& machines) {
  machines.make("tb-tmh-sw");
  sh("tb-tmh-sw", {"ip", "link", "add", "tbmh-br", "type", "bridge"});
  sh("tb-tmh-sw", {"ip", "link", "set", "tbmh-br", "up"});
  for (const auto& h : kHosts) {
    const std::string ns = host_ns(h);
    machines.make(ns);
    const std::string port = "tbmh-" + h.substr(4);
    sh("tb-tmh-sw", {"ip", "link", "add", port, "mtu", std::to_string(kUnderlayMtu), "type", "veth",
                     "peer", "tbu0", "mtu", std::to_string(kUnderlayMtu), "netns", ns});
    sh("tb-tmh-sw", {"ip", "link", "set", port, "master", "tbmh-br", "up"});
    sh(ns, {"ip", "addr", "add", underlay_address(h) + "/24", "dev", "tbu0"});
    sh(ns, {"ip", "link", "set", "tbu0", "up"});
    sh(ns, {"ip", "link", "set", "lo", "up"});  // a machine's own: the exporter listens there
  }
}

// host of each node, from `testbed plan --hosts 3 --json`.
std::map<std::string, std::string> placement_of(const std::string& profile) {
  const Result r = run_testbed({"plan", profile, "--hosts", "3", "--json"});
  EXPECT_EQ(r.status, 0) << r.output;
  std::map<std::string, std::string> host_of;
  const auto plan = nlohmann::json::parse(r.output, nullptr, false);
  if (plan.is_discarded()) return host_of;
  for (const auto& h : plan["placement"]["hosts"]) {
    for (const auto& n : h["nodes"]) host_of[n.get<std::string>()] = h["host"];
  }
  return host_of;
}

// What kubelet and meshnet do for each data center's pod, from the exported Topology
// resources: its namespace, and for each link to a pod on another host a VXLAN end made in
// this host's namespace and moved into the pod's by the host-device plugin, which names it
// and gives it its address through the static plugin.
std::vector<CrossLink> make_pods_and_cross_host_links(
    ThreeHosts& machines, const std::string& profile,
    const std::map<std::string, std::string>& host_of) {
  const std::string out = fs::temp_directory_path() / "tb-tmh-k8s";
  const Result r = run_testbed({"export", "k8s", profile, "--out", out});
  EXPECT_EQ(r.status, 0) << r.output;
  const auto topologies = YAML::LoadAllFromFile(out + "/meshnet-topology.yaml");
  fs::remove_all(out);
  std::map<std::string, std::string> host_of_pod;
  for (const auto& t : topologies) {
    const std::string pod = t["metadata"]["name"].as<std::string>();
    host_of_pod[pod] = host_of.at(t["metadata"]["labels"]["testbed/node"].as<std::string>());
    machines.make(pod);  // the testbed's pod names are its namespace names
  }
  std::vector<CrossLink> cross;
  for (const auto& t : topologies) {
    const std::string pod = t["metadata"]["name"].as<std::string>();
    const std::string host = host_of_pod.at(pod);
    for (const auto& l : t["spec"]["links"]) {
      const std::string peer_host = host_of_pod.at(l["peer_pod"].as<std::string>());
      if (peer_host == host) continue;  // same host: the slice makes it, a veth
      const std::string uid = l["uid"].as<std::string>();
      const std::string vxlan = "tbvx" + uid;
      sh(host_ns(host), {"ip", "link", "add", vxlan, "type", "vxlan", "id", uid, "local",
                         underlay_address(host), "remote", underlay_address(peer_host), "dstport",
                         std::to_string(kVxlanPort), "dev", "tbu0"});
      const nlohmann::json config = {
          {"cniVersion", "1.0.0"},
          {"name", "tb-tmh"},
          {"type", "host-device"},
          {"device", vxlan},
          {"ipam",
           {{"type", "static"}, {"addresses", {{{"address", l["local_ip"].as<std::string>()}}}}}}};
      const CommandResult cni = run_in_netns(
          host_ns(host),
          {"env", "CNI_COMMAND=ADD", "CNI_CONTAINERID=" + pod, "CNI_NETNS=/run/netns/" + pod,
           "CNI_IFNAME=" + l["local_intf"].as<std::string>(), "CNI_PATH=/usr/lib/cni",
           "/usr/lib/cni/host-device"},
          config.dump());
      EXPECT_EQ(cni.status, 0) << "host-device for " << pod << ": " << cni.output;
      if (pod < l["peer_pod"].as<std::string>()) {
        cross.push_back({pod, l["local_intf"].as<std::string>(), l["local_ip"].as<std::string>(),
                         l["peer_pod"].as<std::string>(), l["peer_intf"].as<std::string>(),
                         l["peer_ip"].as<std::string>(), host, peer_host});
      }
    }
  }
  return cross;
}

std::string bare(const std::string& cidr) {
  return cidr.substr(0, cidr.find('/'));
}

struct LinkFigures {
  std::string ping;  // ping's output, judged by expect_rtt
  double rtt_ms = 0, mbit = 0;
};

// iperf3's rate from a to b: the better of `flows` flows. One 5 s flow over a 60 ms RTT that
// meets a single drop (a loaded host's softirq falling behind the VXLAN encapsulation)
// spends seconds regrowing its window and reads 10-15% low (113.6 against 123.6 Mbit/s once
// in CI). A drop only ever lowers a flow's rate, so the best flow is the link's rate read
// from below.
double best_rate(const std::string& a_ns, const std::string& b_ns, const std::string& b_ip,
                 int flows) {
  double best = 0;
  for (int i = 0; i < flows; ++i) best = std::max(best, iperf3_mbit(a_ns, b_ns, b_ip));
  return best;
}

// 20 pings across the link (their average RTT in ms), and the better of two flows a to b.
LinkFigures measure(const std::string& a_ns, const std::string& b_ns, const std::string& b_ip) {
  LinkFigures f;
  const CommandResult ping =
      run_in_netns(a_ns, {"ping", "-c", "20", "-i", "0.05", "-q", bare(b_ip)});
  EXPECT_EQ(ping.status, 0) << ping.output;
  f.ping = ping.output;
  f.rtt_ms = ping_field(ping.output, std::regex(R"(= [\d.]+/([\d.]+)/)"));
  f.mbit = best_rate(a_ns, b_ns, bare(b_ip), 2);
  return f;
}

TEST(MultiHost, Internet2OverThreeHostsKeepsOneBoxRttAndRateAndSurvivesAHostLeaving) {
  REQUIRE_ROOT();
  // On one box first, for the figures beside which the spread lab is judged.
  const std::string one_box_profile = internet2_without_loss(kOneBox);
  const std::string profile = internet2_without_loss(kLab);
  const auto host_of = placement_of(profile);
  ASSERT_EQ(host_of.size(), 9u);

  ThreeHosts machines;
  build_underlay(machines);
  const auto cross = make_pods_and_cross_host_links(machines, profile, host_of);
  ASSERT_FALSE(cross.empty());
  for (const auto& h : kHosts) {
    const Result up = machines.up(h, profile);
    ASSERT_EQ(up.status, 0) << h << ": " << up.output;
    EXPECT_NE(up.output.find("host " + h + ": lab " + kLab + " is up"), std::string::npos)
        << up.output;
  }

  // Every data center reaches every other, through links on one host and between hosts.
  std::vector<std::pair<std::string, std::string>> nodes;  // namespace, address
  const auto whole =
      nlohmann::json::parse(run_testbed({"plan", profile, "--json", "--routes"}).output);
  for (const auto& n : whole["nodes"]) nodes.emplace_back(n["namespace"], n["address"]);
  int pairs = 0;
  for (const auto& [src, _] : nodes) {
    for (const auto& [dst, address] : nodes) {
      if (src == dst) continue;
      const CommandResult ping = run_in_netns(src, {"ping", "-c", "1", "-W", "5", "-q", address});
      EXPECT_EQ(ping.status, 0) << src << " -> " << dst << ": " << ping.output;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 72);
  // Names resolve across hosts: each node's hosts file lists the whole lab.
  for (const auto& [ns, _] : nodes) {
    std::ifstream hosts("/etc/netns/" + ns + "/hosts");
    std::stringstream text;
    text << hosts.rdbuf();
    for (const auto& n : whole["nodes"]) {
      EXPECT_NE(text.str().find(n["address"].get<std::string>() + "\t" +
                                n["name"].get<std::string>() + " "),
                std::string::npos)
          << ns << " lacks " << n["name"];
    }
  }

  // The first link between hosts, measured over its VXLAN and then on one box.
  const CrossLink& l = cross.front();
  LinkFigures spread = measure(l.a_ns, l.b_ns, l.b_ip);
  LabGuard one_box_guard(kOneBox);
  {
    const Result up = run_testbed({"up", one_box_profile, "--prometheus", "off"});
    ASSERT_EQ(up.status, 0) << up.output;
  }
  const std::string prefix = std::string("tb-") + kLab + "-";
  const auto on_one_box = [&](const std::string& ns) {
    return std::string("tb-") + kOneBox + "-" + ns.substr(prefix.size());
  };
  LinkFigures one = measure(on_one_box(l.a_ns), on_one_box(l.b_ns), l.b_ip);
  double configured = 0;
  for (const auto& link : whole["links"]) {
    for (const char* d : {"a2b", "b2a"}) {
      if (link[d]["namespace"] == l.a_ns && link[d]["dev"] == l.a_dev)
        configured = link[d]["rate_bits_per_s"].get<double>() / 1e6;
    }
  }
  constexpr double kGoodputPerFrameByte = 1448.0 / 1514.0;  // as in bringup_test.cpp
  const double expected = configured * kGoodputPerFrameByte;
  // A side that reads more than the tolerance below the other lab or below the configured
  // rate may have met a drop in both its flows: two more flows there (one-sided, see
  // best_rate). A real gap stays a gap, however many flows are read. CI once read 124.0
  // against 132.9 Mbit/s expected over hosts, with one box at 128.9 from the same two flows.
  const auto reads_low = [](double mbit, double reference) { return mbit < reference * 0.95; };
  if (reads_low(spread.mbit, std::max(one.mbit, expected)))
    spread.mbit = std::max(spread.mbit, best_rate(l.a_ns, l.b_ns, bare(l.b_ip), 2));
  if (reads_low(one.mbit, std::max(spread.mbit, expected)))
    one.mbit =
        std::max(one.mbit, best_rate(on_one_box(l.a_ns), on_one_box(l.b_ns), bare(l.b_ip), 2));
  std::cout << "[ measured ] " << l.a_ns << " (" << l.a_host << ") -> " << l.b_ns << " ("
            << l.b_host << "): RTT " << spread.rtt_ms << " ms over hosts, " << one.rtt_ms
            << " ms on one box; iperf3 " << spread.mbit << " Mbit/s over hosts, " << one.mbit
            << " Mbit/s on one box (" << spread.mbit / one.mbit << ")\n";
  // The tolerances of one box's own tests: RTT judged against twice the 30 ms one-way delay
  // as dynamics_test.cpp judges it, rate within 5% (bringup_test.cpp).
  expect_rtt(spread.ping, 60.0);
  expect_rtt(one.ping, 60.0);
  EXPECT_NEAR(spread.mbit, one.mbit, one.mbit * 0.05);
  EXPECT_NEAR(spread.mbit, expected, expected * 0.05);

  // One host's slice goes down; the other two keep working.
  const Result down = machines.down("host2");
  ASSERT_EQ(down.status, 0) << down.output;
  EXPECT_NE(down.output.find("adopted namespaces, which are kept"), std::string::npos)
      << down.output;
  std::map<std::string, std::string> ns_of, address_of;
  for (const auto& n : whole["nodes"]) {
    ns_of[n["name"]] = n["namespace"];
    address_of[n["name"]] = n["address"];
  }
  // Its pods keep what kubelet and the CNI made them, and nothing the testbed added.
  for (const auto& [node, host] : host_of) {
    if (host != "host2") continue;
    const std::string ns = ns_of.at(node);
    EXPECT_EQ(run_in_netns(ns, {"ip", "route"}).output.find(" via "), std::string::npos) << ns;
    EXPECT_EQ(run_in_netns(ns, {"tc", "qdisc", "show"}).output.find("tbf"), std::string::npos)
        << ns;
    for (const auto& c : cross) {
      if (c.a_ns != ns && c.b_ns != ns) continue;
      const auto [dev, ip] = c.a_ns == ns ? std::pair(c.a_dev, c.a_ip) : std::pair(c.b_dev, c.b_ip);
      EXPECT_NE(run_in_netns(ns, {"ip", "-o", "addr", "show", "dev", dev}).output.find(ip),
                std::string::npos)
          << dev << "@" << ns << " keeps the address the CNI gave it";
    }
  }
  // Pairs on hosts 1 and 3 whose routed path avoids host 2 still reach each other.
  int kept = 0;
  for (const auto& r : whole["routes"]) {
    bool avoids = true;
    for (const auto& hop : r["path"]) avoids = avoids && host_of.at(hop) != "host2";
    if (!avoids) continue;
    const CommandResult ping = run_in_netns(
        ns_of.at(r["node"]), {"ping", "-c", "1", "-W", "5", "-q", address_of.at(r["destination"])});
    EXPECT_EQ(ping.status, 0) << r["node"] << " -> " << r["destination"] << ": " << ping.output;
    ++kept;
  }
  EXPECT_GT(kept, 0);
  for (const char* h : {"host1", "host3"}) {
    const Result status = run_testbed({"status", kLab, "--json"}, machines.env(h));
    EXPECT_EQ(status.status, 0) << h << ": " << status.output;
  }
  std::cout << "[ measured ] host2 down: " << kept << " routed pairs avoiding it still reach\n";
}

}  // namespace
}  // namespace testbed::it

namespace testbed::it {
namespace {

// A placement file for plain hosts: each host's nodes (as `plan --hosts 3` placed them)
// and its underlay address, and `testbed keys`' copy of it with every host's key (`keyed`,
// beside the hosts' HOST.key files); removed on destruction.
struct PlacementFile {
  std::string path = fs::temp_directory_path() / "tb-tmh-placement.yaml";
  std::string keys_dir = fs::temp_directory_path() / "tb-tmh-keys";
  std::string keyed = keys_dir + "/placement.yaml";
  explicit PlacementFile(const std::map<std::string, std::string>& host_of) {
    fs::remove_all(keys_dir);
    std::ofstream out(path);
    out << "hosts:\n";
    for (const auto& h : kHosts) {
      out << "  " << h << ": [";
      std::string sep;
      for (const auto& [node, host] : host_of) {
        if (host == h) out << sep << node, sep = ", ";
      }
      out << "]\n";
    }
    out << "underlay:\n";
    for (const auto& h : kHosts)
      out << "  " << h << ": {address: " << underlay_address(h) << ", dev: tbu0}\n";
    out.close();
    made_keys = run_testbed({"keys", path, "--out", keys_dir});
  }
  ~PlacementFile() {
    fs::remove(path);
    fs::remove_all(keys_dir);
  }
  Result made_keys;
};

// Plain hosts (no Kubernetes): the three hosts, a placement file giving their underlay
// addresses, and each host's slice brought up by its own `testbed up`, which makes its ends
// of the links between hosts itself, as VXLANs whose sockets live in the host's own network.
class PlainHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_ROOT();
    profile_ = internet2_without_loss(kLab);
    host_of_ = placement_of(profile_);
    ASSERT_EQ(host_of_.size(), 9u);
    build_underlay(machines_);
    placement_.emplace(host_of_);
    ASSERT_EQ(placement_->made_keys.status, 0) << placement_->made_keys.output;
    for (const auto& h : kHosts) {
      const Result up = machines_.up(h, profile_, placement_->keyed);
      ASSERT_EQ(up.status, 0) << h << ": " << up.output;
      EXPECT_NE(up.output.find("link ends as VXLANs to other hosts"), std::string::npos)
          << up.output;
    }
  }
  std::string profile_;
  std::map<std::string, std::string> host_of_;
  ThreeHosts machines_;
  std::optional<PlacementFile> placement_;
};

TEST_F(PlainHosts, MakeTheLinksBetweenThemAsVxlans) {
  // Every link between hosts is a VXLAN at both ends, in the nodes' namespaces.
  const auto sliced = nlohmann::json::parse(
      run_testbed({"plan", profile_, "--hosts", placement_->path, "--json"}).output);
  size_t vxlans = 0;
  for (const auto& slice : sliced["slices"]) {
    for (const auto& step : slice["plan"]["steps"]) {
      if (step["op"] != "create_vxlan") continue;
      const CommandResult link = run_in_netns(
          step["ns"], {"ip", "-d", "link", "show", "dev", step["dev"].get<std::string>()});
      EXPECT_NE(link.output.find("vxlan id " + std::to_string(step["vni"].get<int>())),
                std::string::npos)
          << link.output;
      ++vxlans;
    }
  }
  EXPECT_EQ(vxlans, 2 * sliced["placement"]["links_between_hosts"].get<size_t>());
  EXPECT_GT(vxlans, 0u);

  const auto whole = nlohmann::json::parse(run_testbed({"plan", profile_, "--json"}).output);
  int pairs = 0;
  for (const auto& src : whole["nodes"]) {
    for (const auto& dst : whole["nodes"]) {
      if (src == dst) continue;
      const CommandResult ping =
          run_in_netns(src["namespace"],
                       {"ping", "-c", "1", "-W", "5", "-q", dst["address"].get<std::string>()});
      EXPECT_EQ(ping.status, 0) << src["name"] << " -> " << dst["name"] << ": " << ping.output;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 72);

  // Each host takes its slice down: the namespaces it made go, tunnels and all.
  for (const auto& h : kHosts) {
    const Result down = machines_.down(h);
    EXPECT_EQ(down.status, 0) << h << ": " << down.output;
  }
  LibnlKernel kernel;
  for (const auto& n : whole["nodes"])
    EXPECT_FALSE(kernel.namespace_exists(n["namespace"])) << n["namespace"];
}

}  // namespace
}  // namespace testbed::it

namespace testbed::it {
namespace {

// The controller's address on the underlay: host1's, where `train --agents-listen` binds.
constexpr char kControl[] = "198.18.254.1:7199";

// `testbed ARGS...` started on `host` and left running: ended by SIGTERM (then SIGKILL) and
// reaped on destruction if it has not ended; its output in a file removed then.
class OnHost {
 public:
  OnHost(const ThreeHosts& machines, const std::string& host, const std::vector<std::string>& args)
      : log_(temp_file("tb-tmh-" + host + "-" + args.front() + ".log")) {
    std::vector<std::string> argv = {"env", "TESTBED_RUN_DIR=" + machines.dir(host), TESTBED_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = spawn_in_netns(host_ns(host), argv, log_);
  }
  ~OnHost() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGTERM);
      if (wait(5) < 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
    }
    fs::remove(log_);
  }
  void signal(int sig) const { kill(pid_, sig); }
  // Its exit status, or -1 when it is still running after `seconds`.
  int wait(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!reaped_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else if (std::chrono::steady_clock::now() >= until) {
        return -1;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    return status_;
  }
  std::string output() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = -1;
};

// The processes `host`'s state records whose program `is_one` accepts, as (pid, node).
template <class Program>
std::vector<std::pair<int, std::string>> recorded_on(const ThreeHosts& machines,
                                                     const std::string& host, Program is_one) {
  std::vector<std::pair<int, std::string>> out;
  const auto state = lab_state_json(kLab, machines.dir(host));
  if (state.is_null()) return out;
  for (const auto& p : state.value("processes", nlohmann::json::array())) {
    const auto argv = p.value("argv", nlohmann::json::array());
    if (!argv.empty() && argv[0].is_string() && is_one(argv[0].get<std::string>()))
      out.emplace_back(p["pid"].get<int>(), p["node"].get<std::string>());
  }
  return out;
}

// The agents `host`'s state records.
std::vector<std::pair<int, std::string>> agents_on(const ThreeHosts& machines,
                                                   const std::string& host) {
  return recorded_on(machines, host,
                     [](const std::string& program) { return program.ends_with("testbed-agent"); });
}

// What a run ends with: its loss after every iteration (the tree strategies; the
// parameter server's curve is sampled in time, so its final loss), and how far its model is
// from the single-process reference.
struct RunModel {
  std::vector<double> loss;
  double reference_diff = -1;
  double mean_iteration_s = 0;
  // The WAN bytes (a parameter-server run's) and the link directions the health judged:
  // over hosts, every host's links, as on one box.
  double wan_bytes = -1;
  size_t health_directions = 0;
  nlohmann::json hosts;  // the summary's "hosts" (over hosts only)
  nlohmann::json health_by_host;
};

RunModel model_of(const nlohmann::json& summary) {
  RunModel m;
  if (summary.is_null()) return m;
  if (summary.contains("loss")) {
    m.loss = summary["loss"].get<std::vector<double>>();
  } else {
    m.loss.push_back(summary["final_loss"]);
  }
  m.reference_diff = summary["reference_max_abs_diff"];
  m.mean_iteration_s = summary.value("mean_iteration_s", 0.0);
  m.wan_bytes = summary.value("wan_bytes", -1.0);
  const nlohmann::json health = summary.value("health", nlohmann::json::object());
  m.health_directions = health.value("directions", nlohmann::json::array()).size();
  m.hosts = summary.value("hosts", nlohmann::json());
  m.health_by_host = health.value("by_host", nlohmann::json());
  return m;
}

// BSP's van speaks PLAIN over hosts too, so that its WAN bytes are the same bytes as on one
// box: CURVE's framing and MACs add a third to its small messages (measured: 1.567 MB over
// hosts with CURVE, 1.185 MB with PLAIN, 1.189 and 1.181 MB on one box). NetStorm's runs
// keep CURVE, the default over hosts.
const std::vector<std::vector<std::string>> kRuns = {
    {"--strategy", "netstorm", "--model", "logreg", "--iterations", "10"},
    {"--strategy", "bsp", "--model", "logreg", "--iterations", "10", "--van-security", "plain"}};

// Training over three hosts: host1's `train --agents-listen` controls the run, hosts 2 and 3
// run their nodes' agents with `testbed agents`; NetStorm and BSP end with the model they
// end with on one box; an agent killed on host 2 is named and ends the run on every host.
TEST_F(PlainHosts, NetStormAndBspOverThreeHostsEndWithTheOneBoxModel) {
  const std::vector<std::string> control = {"agents", kLab, "--control",
                                            std::string("tcp://") + kControl};
  // Without --agents-listen, the controller says what the other hosts need.
  const Result refused = machines_.on("host1", {"train", kLab, "--strategy", "bsp"});
  EXPECT_EQ(refused.status, 2) << refused.output;
  EXPECT_NE(refused.output.find("--agents-listen"), std::string::npos) << refused.output;

  std::vector<RunModel> spread;
  for (const auto& run : kRuns) {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    std::vector<std::string> args = {"train", kLab, "--agents-listen", kControl, "--json"};
    args.insert(args.end(), run.begin(), run.end());
    const Result r = machines_.on("host1", args);
    ASSERT_EQ(r.status, 0) << run[1] << ": " << r.output;
    spread.push_back(model_of(summary_of(r.output)));
    for (OnHost* h : {&host2, &host3}) {
      EXPECT_EQ(h->wait(30), 0) << h->output();
      EXPECT_NE(h->output().find("3 of 3 agents quit when told"), std::string::npos) << h->output();
    }
  }

  // What CURVE costs a run over hosts: NetStorm's default workload (the profile's: ResNet-50
  // x0.1) with the van on CURVE (the default) and on PLAIN, side by side. The seconds are
  // printed, not judged (a loaded machine moves them).
  {
    std::map<std::string, double> by_van;
    for (const std::string van : {"curve", "plain"}) {
      OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
      const Result r =
          machines_.on("host1", {"train", kLab, "--agents-listen", kControl, "--json", "--strategy",
                                 "netstorm", "--iterations", "5", "--van-security", van});
      ASSERT_EQ(r.status, 0) << van << ": " << r.output;
      const auto summary = summary_of(r.output);
      EXPECT_EQ(summary["van_security"], van);
      by_van[van] = summary.value("mean_iteration_s", 0.0);
      EXPECT_GT(by_van[van], 0) << r.output;
      for (OnHost* h : {&host2, &host3}) EXPECT_EQ(h->wait(30), 0) << h->output();
    }
    std::cout << "[ measured ] netstorm (the profile's workload, 5 iterations) over three hosts: "
              << "mean iteration " << by_van["curve"] << " s with CURVE, " << by_van["plain"]
              << " s with PLAIN\n";
  }

  // An agent killed on host 2: its host names it, the controller ends the run naming it,
  // and every host's agents end.
  {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    OnHost train(machines_, "host1",
                 {"train", kLab, "--agents-listen", kControl, "--strategy", "bsp", "--model",
                  "logreg", "--iterations", "100000"});
    std::vector<std::pair<int, std::string>> agents;
    for (int i = 0; i < 1500 && agents.size() < 3; ++i) {  // 30 s
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      agents = agents_on(machines_, "host2");
    }
    ASSERT_EQ(agents.size(), 3u);
    // Every agent set up and training before the kill. An agent still connecting when the
    // run ends never hears its `quit` (the controller's socket drops what it cannot route
    // yet), and its host kills it after the grace and exits 1: right, but not this test's
    // case. Seen under load, when host 3's agents were slower to connect than the kill.
    for (int i = 0; i < 1500 && train.output().find("iteration 1/") == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // 30 s
    ASSERT_NE(train.output().find("iteration 1/"), std::string::npos) << train.output();
    kill(agents.front().first, SIGKILL);
    EXPECT_EQ(train.wait(60), 1) << train.output();
    EXPECT_NE(train.output().find("the agent of node " + agents.front().second +
                                  " on host host2 died (killed by signal 9)"),
              std::string::npos)
        << train.output();
    EXPECT_EQ(host2.wait(30), 1) << host2.output();
    EXPECT_EQ(host3.wait(30), 0) << host3.output();
    for (const char* h : {"host2", "host3"})
      EXPECT_TRUE(agents_on(machines_, h).empty()) << h << " still records agents";
  }
  for (const auto& h : kHosts) {
    const Result down = machines_.down(h);
    EXPECT_EQ(down.status, 0) << h << ": " << down.output;
  }

  // The same runs on one box.
  LabGuard one_box_guard(kOneBox);
  {
    const Result up = run_testbed({"up", internet2_without_loss(kOneBox), "--prometheus", "off"});
    ASSERT_EQ(up.status, 0) << up.output;
  }
  for (size_t i = 0; i < kRuns.size(); ++i) {
    const RunModel one = model_of(train_json(kOneBox, kRuns[i]));
    const RunModel& over = spread[i];
    ASSERT_EQ(over.loss.size(), one.loss.size()) << kRuns[i][1];
    ASSERT_FALSE(one.loss.empty());
    for (size_t k = 0; k < one.loss.size(); ++k) {
      // The same model after every iteration: the sums are the same sums; a tree may add
      // them in another order, which moves a float's last bits only.
      EXPECT_NEAR(over.loss[k], one.loss[k], 1e-6) << kRuns[i][1] << " iteration " << k + 1;
    }
    EXPECT_LE(over.reference_diff, 1e-4) << kRuns[i][1];
    EXPECT_LE(one.reference_diff, 1e-4) << kRuns[i][1];
    // Every host's links in the figures: the other hosts answered with theirs, the health
    // judged as many link directions as one box's, each host's own named.
    EXPECT_EQ(over.hosts.value("links_measured", ""), "every host's") << over.hosts.dump();
    EXPECT_EQ(over.hosts.value("links_reported_by", nlohmann::json()),
              (nlohmann::json{"host2", "host3"}))
        << over.hosts.dump();
    EXPECT_EQ(over.health_directions, one.health_directions) << kRuns[i][1];
    EXPECT_EQ(over.health_by_host.size(), 3u) << over.health_by_host.dump();
    if (one.wan_bytes > 0) {
      // The same pushes and pulls cross the same links (PLAIN both ways: kRuns). Before
      // the other hosts reported, the figure over hosts was host1's links' alone.
      EXPECT_NEAR(over.wan_bytes / one.wan_bytes, 1.0, 0.05) << kRuns[i][1];
      std::cout << "[ measured ] " << kRuns[i][1] << ": WAN bytes " << over.wan_bytes / 1e6
                << " MB over three hosts, " << one.wan_bytes / 1e6 << " MB on one box\n";
    }
    std::cout << "[ measured ] " << kRuns[i][1] << ": final loss " << over.loss.back()
              << " over three hosts, " << one.loss.back()
              << " on one box; from the single-process reference " << over.reference_diff << " and "
              << one.reference_diff << "; mean iteration " << over.mean_iteration_s
              << " s over hosts, " << one.mean_iteration_s << " s on one box\n";
  }
}

// Runs `body` on a thread of its own inside `host`'s network namespace, as a process on that
// host would run it: the ZeroMQ contexts it makes start their I/O threads there.
template <class F>
void on_host_thread(const std::string& host, F body) {
  std::thread t([&] {
    const int fd = open(("/run/netns/" + host_ns(host)).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
      ADD_FAILURE() << "cannot enter " << host_ns(host);
      if (fd >= 0) close(fd);
      return;
    }
    close(fd);
    body();
  });
  t.join();
}

// An outsider on host3's network: ZeroMQ without CURVE under ids that are a node's, another
// spelling of one, and a host's; forged events; CURVE with a key that is no host's; and a raw
// connection declaring a 1 GiB frame. None of it may get past the handshake.
void attack_control_port(const std::string& endpoint) {
  on_host_thread("host3", [&] {
    zmq::context_t c;
    std::vector<zmq::socket_t> sockets;
    const std::vector<std::pair<std::string, std::string>> forged = {
        {"0", R"({"event":"probed","mbit":{"99999":1e9}})"},
        {"00", R"({"event":"clock","clock":18446744073709551615,"seconds":1})"},
        {" 1", R"({"event":"died","node":"x"})"},
        {"host/host3", R"({"event":"died","node":1,"how":"forged"})"}};
    for (const auto& [id, event] : forged) {
      sockets.emplace_back(c, zmq::socket_type::dealer);
      sockets.back().set(zmq::sockopt::routing_id, id);
      sockets.back().set(zmq::sockopt::linger, 0);
      sockets.back().connect(endpoint);
      sockets.back().send(zmq::buffer(event), zmq::send_flags::dontwait);
    }
    // CURVE, pinning the real controller's key, with a key of its own.
    const CurveKeyPair wrong = make_curve_key_pair();
    zmq::socket_t keyed(c, zmq::socket_type::dealer);
    keyed.set(zmq::sockopt::routing_id, "host/host3");
    keyed.set(zmq::sockopt::linger, 0);
    set_control_curve(
        keyed,
        {wrong,
         read_curve_key_file(fs::temp_directory_path() / "tb-tmh-keys/host1.key").public_key});
    keyed.connect(endpoint);
    keyed.send(zmq::buffer(std::string(R"({"event":"died","node":1,"how":"forged"})")),
               zmq::send_flags::dontwait);
    std::this_thread::sleep_for(std::chrono::seconds(2));
  });
  // ZMTP 3.0's greeting offering NULL, then a frame header declaring 1 GiB (RFC 23).
  const CommandResult raw = run_in_netns(
      host_ns("host3"), {"python3", "-c",
                         "import socket, struct, time\n"
                         "s = socket.create_connection(('198.18.254.1', 7199), timeout=5)\n"
                         "try:\n"
                         "    s.sendall(b'\\xff' + bytes(8) + b'\\x7f\\x03\\x00' + "
                         "b'NULL'.ljust(20, b'\\0') + bytes(32))\n"
                         "    s.sendall(b'\\x02' + struct.pack('>Q', 1 << 30) + bytes(65536))\n"
                         "    time.sleep(1)\n"
                         "except OSError:\n"
                         "    pass\n"});
  EXPECT_EQ(raw.status, 0) << raw.output;
}

// The hostile network (docs/multihost.md#security): a fake controller bound to the port
// first is refused by host2's agents, which start nothing and exit 1; with the real one, an
// outsider on host3's network is refused at the handshake, counted and named by its
// host's address, and the run ends with the model of a run without it.
TEST_F(PlainHosts, StrangersAndAFakeControllerAreRefusedAndTheRunIsUnchanged) {
  const std::string endpoint = std::string("tcp://") + kControl;
  const std::vector<std::string> control = {"agents", kLab, "--control", endpoint};
  {
    Result fooled;
    on_host_thread("host1", [&] {
      zmq::context_t c;
      zmq::socket_t fake(c, zmq::socket_type::router);
      fake.set(zmq::sockopt::linger, 0);
      fake.set(zmq::sockopt::curve_server, 1);
      fake.set(zmq::sockopt::curve_secretkey, make_curve_key_pair().secret_key);
      fake.bind(endpoint);
      fooled = machines_.on("host2", control);
    });
    EXPECT_EQ(fooled.status, 1) << fooled.output;
    EXPECT_NE(fooled.output.find("refused the server at " + endpoint), std::string::npos)
        << fooled.output;
    EXPECT_NE(fooled.output.find("no agent was started"), std::string::npos) << fooled.output;
    EXPECT_TRUE(agents_on(machines_, "host2").empty());
  }
  const auto run = [&](bool attacked) {
    OnHost train(machines_, "host1",
                 {"train", kLab, "--agents-listen", kControl, "--json", "--strategy", "netstorm",
                  "--model", "logreg", "--iterations", "10"});
    for (int i = 0; i < 1500 && train.output().find("waiting for the agents") == std::string::npos;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // 30 s
    if (attacked) attack_control_port(endpoint);
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    EXPECT_EQ(train.wait(120), 0) << train.output();
    for (OnHost* h : {&host2, &host3}) EXPECT_EQ(h->wait(30), 0) << h->output();
    return std::make_pair(summary_of(train.output()), train.output());
  };
  const auto [quiet, quiet_output] = run(false);
  const auto [attacked, attacked_output] = run(true);
  ASSERT_FALSE(quiet.is_null()) << quiet_output;
  ASSERT_FALSE(attacked.is_null()) << attacked_output;
  EXPECT_EQ(quiet["hosts"]["refused_connections"], 0) << quiet_output;
  // Four ZeroMQ strangers without CURVE, one with a key that is no host's, one raw greeting
  // (each may retry, so at least six).
  EXPECT_GE(attacked["hosts"]["refused_connections"].get<uint64_t>(), 6u) << attacked_output;
  EXPECT_EQ(attacked["hosts"]["spoofed_messages"], 0);
  EXPECT_EQ(attacked["hosts"]["malformed_replies"], 0);
  EXPECT_NE(attacked_output.find("refused a connection from 198.18.254.3 (host host3's address) "
                                 "with a key that is no host's in the placement"),
            std::string::npos)
      << attacked_output;
  const RunModel a = model_of(attacked), q = model_of(quiet);
  ASSERT_EQ(a.loss.size(), q.loss.size());
  for (size_t k = 0; k < q.loss.size(); ++k) EXPECT_NEAR(a.loss[k], q.loss[k], 1e-6) << k;
  std::cout << "[ measured ] refused " << attacked["hosts"]["refused_connections"]
            << " connections; final loss " << a.loss.back() << " attacked, " << q.loss.back()
            << " quiet; mean iteration " << a.mean_iteration_s << " / " << q.mean_iteration_s
            << " s\n";
  for (const auto& h : kHosts) EXPECT_EQ(machines_.down(h).status, 0) << h;
}

// Every process `host`'s state records for the job (the launched ranks), as (pid, node).
std::vector<std::pair<int, std::string>> ranks_on(const ThreeHosts& machines,
                                                  const std::string& host) {
  return recorded_on(machines, host,
                     [](const std::string& program) { return program == "/usr/bin/python3"; });
}

std::string example(const std::string& path) {
  return TESTBED_EXAMPLES_DIR + "/" + path;
}

// A user's own job over three hosts (docs/multihost.md#launch): host1's `launch
// --agents-listen` runs its ranks and hands the others' to hosts 2 and 3's `testbed agents`.
// PyTorch's all-reduce and DDP end as on one box; a rank killed on host 2 is named with its
// host and stops every rank everywhere; so do Ctrl-C and the controller's death; nothing is
// left on any host.
TEST_F(PlainHosts, LaunchRunsPyTorchOverThreeHostsAsOnOneBox) {
  const std::string python = "/usr/bin/python3";
  const std::vector<std::string> control = {"agents", kLab, "--control",
                                            std::string("tcp://") + kControl};
  const std::vector<std::string> launch = {"launch", kLab, "--agents-listen", kControl};
  const auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), launch.begin(), launch.end());
    return args;
  };
  // Without --agents-listen, the controller says what the other hosts need.
  const Result refused = machines_.on("host1", {"launch", kLab, "--", python, "-c", "pass"});
  EXPECT_EQ(refused.status, 2) << refused.output;
  EXPECT_NE(refused.output.find("--agents-listen"), std::string::npos) << refused.output;

  const std::vector<std::string> allreduce = {"--", python,
                                              example("pytorch-allreduce/allreduce.py")};
  const std::vector<std::string> ddp = {
      "--json", "--", python, example("pytorch-ddp/train.py"), "--steps", "8", "--eval-every", "7"};
  const auto whole = nlohmann::json::parse(run_testbed({"plan", profile_, "--json"}).output);
  Result spread_allreduce;
  nlohmann::json spread_ddp;
  {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    spread_allreduce = machines_.on("host1", with(allreduce));
    EXPECT_EQ(spread_allreduce.status, 0) << spread_allreduce.output;
    for (OnHost* h : {&host2, &host3}) EXPECT_EQ(h->wait(30), 0) << h->output();
  }
  {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    const Result r = machines_.on("host1", with(ddp));
    EXPECT_EQ(r.status, 0) << r.output;
    spread_ddp = summary_of(r.output);
    for (OnHost* h : {&host2, &host3}) EXPECT_EQ(h->wait(30), 0) << h->output();
  }
  size_t rank = 0;
  for (const auto& n : whole["nodes"]) {
    const std::string node = n["name"];
    const std::string line =
        "[" + node + "] rank " + std::to_string(rank++) + " on " + node + ": every element is 9";
    EXPECT_NE(spread_allreduce.output.find(line), std::string::npos) << line << "\n"
                                                                     << spread_allreduce.output;
  }
  ASSERT_TRUE(spread_ddp.is_object());
  EXPECT_EQ(spread_ddp["status"], "completed");
  EXPECT_EQ(spread_ddp["hosts"]["refused_connections"], 0);
  EXPECT_EQ(spread_ddp["hosts"]["malformed_messages"], 0);
  ASSERT_EQ(spread_ddp["nodes"].size(), 9u);
  for (const auto& n : spread_ddp["nodes"]) {
    EXPECT_EQ(n["iterations"], 8) << n.dump();  // every rank's metric lines reached host1
    EXPECT_EQ(n["exit_status"], 0) << n.dump();
  }

  // A rank killed on host 2: named with its host, every other rank stopped on every host.
  {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    OnHost job(machines_, "host1", with({"--", python, "-c", "import time; time.sleep(600)"}));
    std::vector<std::pair<int, std::string>> victims;
    for (int i = 0; i < 1500 && victims.size() < 3; ++i) {  // 30 s
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      victims = ranks_on(machines_, "host2");
    }
    ASSERT_EQ(victims.size(), 3u) << host2.output();
    std::vector<int> every;
    for (const auto& h : kHosts)
      for (const auto& [pid, node] : ranks_on(machines_, h)) every.push_back(pid);
    kill(victims.front().first, SIGKILL);
    EXPECT_EQ(job.wait(60), 1) << job.output();
    EXPECT_NE(job.output().find("node " + victims.front().second + " (rank "), std::string::npos)
        << job.output();
    EXPECT_NE(job.output().find(") on host host2 exited with signal 9"), std::string::npos)
        << job.output();
    EXPECT_EQ(host2.wait(30), 1) << host2.output();
    EXPECT_EQ(host3.wait(30), 1) << host3.output();  // its ranks were stopped, not completed
    for (const auto& h : kHosts) EXPECT_TRUE(ranks_on(machines_, h).empty()) << h;
    for (const int pid : every) EXPECT_NE(kill(pid, 0), 0) << "rank " << pid << " is left";
  }
  // Ctrl-C on the controller's host, then the controller killed outright: every host stops
  // its ranks (the latter when the controller's connection closes), and nothing is left.
  for (const int sig : {SIGINT, SIGKILL}) {
    OnHost host2(machines_, "host2", control), host3(machines_, "host3", control);
    OnHost job(machines_, "host1", with({"--", python, "-c", "import time; time.sleep(600)"}));
    std::vector<int> every;
    for (int i = 0; i < 1500 && every.size() < 9; ++i) {  // 30 s
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      every.clear();
      for (const auto& h : kHosts)
        for (const auto& [pid, node] : ranks_on(machines_, h)) every.push_back(pid);
    }
    ASSERT_EQ(every.size(), 9u);
    job.signal(sig);
    EXPECT_EQ(job.wait(60), sig == SIGINT ? 128 + SIGINT : 128 + SIGKILL) << job.output();
    EXPECT_EQ(host2.wait(60), 1) << host2.output();
    EXPECT_EQ(host3.wait(60), 1) << host3.output();
    if (sig == SIGKILL) {
      EXPECT_NE(host2.output().find("closed the connection"), std::string::npos) << host2.output();
    }
    for (const char* h : {"host2", "host3"}) EXPECT_TRUE(ranks_on(machines_, h).empty()) << h;
    for (const int pid : every) {
      for (int i = 0; i < 250 && kill(pid, 0) == 0; ++i)  // 5 s: PDEATHSIG's work on host1
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_NE(kill(pid, 0), 0) << "rank " << pid << " is left after signal " << sig;
    }
  }
  for (const auto& h : kHosts) EXPECT_EQ(machines_.down(h).status, 0) << h;

  // The same jobs on one box.
  LabGuard one_box_guard(kOneBox);
  ASSERT_EQ(run_testbed({"up", internet2_without_loss(kOneBox), "--prometheus", "off"}).status, 0);
  std::vector<std::string> one_ddp = {"launch", kOneBox};
  one_ddp.insert(one_ddp.end(), ddp.begin(), ddp.end());
  const Result one = run_testbed(one_ddp);
  ASSERT_EQ(one.status, 0) << one.output;
  const auto one_box = summary_of(one.output);
  const auto& a = spread_ddp["loss_curve"];
  const auto& b = one_box["loss_curve"];
  ASSERT_EQ(a.size(), b.size()) << a.dump() << "\n" << b.dump();
  ASSERT_GE(a.size(), 2u);
  // Seeded data and gloo's fixed reduction order: the same losses, whatever the network.
  for (size_t k = 0; k < a.size(); ++k)
    EXPECT_NEAR(a[k][1].get<double>(), b[k][1].get<double>(), 1e-6) << k;
  // Every host read its own links: the job's WAN bytes are the lab's, as on one box (TCP's
  // own retransmissions and acknowledgements aside: within a fifth).
  EXPECT_EQ(spread_ddp["hosts"]["links_reported_by"], (nlohmann::json{"host2", "host3"}));
  // And their health: as many link directions judged as on one box, each host's named.
  EXPECT_EQ(spread_ddp["hosts"]["links_measured"], "every host's");
  EXPECT_EQ(spread_ddp["health"]["directions"].size(), one_box["health"]["directions"].size());
  EXPECT_EQ(spread_ddp["health"]["by_host"].size(), 3u) << spread_ddp["health"].dump();
  const double spread_wan = spread_ddp["wan_bytes"], one_wan = one_box["wan_bytes"];
  EXPECT_NEAR(spread_wan, one_wan, one_wan * 0.2);
  std::cout << "[ measured ] DDP WAN bytes: " << spread_wan << " over three hosts, " << one_wan
            << " on one box\n";
  std::cout << "[ measured ] DDP (8 steps, 9 ranks): final loss " << a.back()[1]
            << " over three hosts, " << b.back()[1] << " on one box; wall " << spread_ddp["wall_s"]
            << " s over hosts, " << one_box["wall_s"] << " s on one box\n";
}

}  // namespace
}  // namespace testbed::it
