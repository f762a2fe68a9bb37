// The pods `testbed export k8s` writes, run here without Kubernetes by doing what kubelet
// and meshnet would: a sandbox process holding each pod's network namespace (the pause
// container), the pods' link made as meshnet makes one between pods on the same machine (a
// veth pair with the Topology's names and addresses), then each pod's sidecar started with
// the very command of its manifest, ready when its startupProbe command passes, stopped
// with SIGTERM as kubelet stops a pod.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

constexpr char kLab[] = "tbt-k8s";
const std::vector<std::string> kNodes = {"left", "right"};
constexpr char kProfile[] =
    "lab: tbt-k8s\n"
    "nodes: {left: {}, right: {}}\n"
    "links:\n"
    "  - {endpoints: [left, right], bandwidth: 50mbit, delay: 20ms}\n";

std::string pod_of(const std::string& node) {
  return std::string("tb-") + kLab + "-" + node;
}

struct Pod {
  pid_t sandbox = -1;  // holds the pod's network namespace, as the pause container does
  pid_t sidecar = -1;
  std::string run_dir;  // the sidecar's own /run/testbed: each container has its own /run
  YAML::Node manifest;
};

// Everything the test started or named, ended whatever its outcome: the sidecars (which
// take their slices down on SIGTERM), the sandboxes, the namespace names the sidecars gave.
class Pods {
 public:
  ~Pods() {
    for (auto& [node, pod] : pods) {
      stop_sidecar(pod);
      if (fs::exists(pod.run_dir + "/" + kLab + "/state.json"))
        run_testbed({"down", kLab}, {{"TESTBED_RUN_DIR", pod.run_dir}});
      if (pod.sandbox > 0) {
        kill(pod.sandbox, SIGKILL);
        waitpid(pod.sandbox, nullptr, 0);
      }
      fs::remove_all(pod.run_dir);
      LibnlKernel kernel;
      if (kernel.namespace_exists(pod_of(node))) kernel.delete_namespace(pod_of(node));
    }
    fs::remove_all(dir);
  }
  // SIGTERM, as kubelet sends; the exit status, or -1 when it had to be killed after 30 s.
  static int stop_sidecar(Pod& pod) {
    if (pod.sidecar <= 0) return -1;
    kill(pod.sidecar, SIGTERM);
    int status = 0;
    for (int i = 0; i < 300; ++i) {
      if (waitpid(pod.sidecar, &status, WNOHANG) == pod.sidecar) {
        pod.sidecar = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pod.sidecar, SIGKILL);
    waitpid(pod.sidecar, nullptr, 0);
    pod.sidecar = -1;
    return -1;
  }
  std::string dir = fs::temp_directory_path() / "tb-tk8s";
  std::map<std::string, Pod> pods;
};

CommandResult in_pod(const Pod& pod, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"nsenter", "-t", std::to_string(pod.sandbox), "-n"});
  return run_in_netns("", argv);
}

bool ready(const Pod& pod) {
  // The manifest's startupProbe, run in the sidecar's environment.
  std::vector<std::string> probe;
  for (const auto& a : pod.manifest["spec"]["initContainers"][0]["startupProbe"]["exec"]["command"])
    probe.push_back(a.as<std::string>());
  probe.erase(probe.begin());  // "testbed"
  return run_testbed(probe, {{"TESTBED_RUN_DIR", pod.run_dir}}).status == 0;
}

TEST(K8sSidecar, ThePodsOfTheExportBringUpTheirSlicesAndTakeThemDownOnSigterm) {
  REQUIRE_ROOT();
  Pods pods;
  fs::create_directories(pods.dir + "/config");
  const std::string profile = pods.dir + "/tbt-k8s.yaml";
  std::ofstream(profile) << kProfile;
  const Result exported = run_testbed({"export", "k8s", profile, "--out", pods.dir});
  ASSERT_EQ(exported.status, 0) << exported.output;
  const auto resources = YAML::LoadAllFromFile(pods.dir + "/testbed-pods.yaml");
  const auto topologies = YAML::LoadAllFromFile(pods.dir + "/meshnet-topology.yaml");
  ASSERT_EQ(resources.size(), 3u);  // the ConfigMap and two pods

  // The ConfigMap, where the sidecars find it (/etc/testbed in the pod).
  for (const auto& f : resources[0]["data"])
    std::ofstream(pods.dir + "/config/" + f.first.as<std::string>()) << f.second.as<std::string>();
  // Each pod's own Secret, its key file where that pod alone mounts it (/etc/testbed-key),
  // 0600 as `up --key` requires (0400 in the pod). The export made the keys, and the
  // placement the sidecars read carries their public halves.
  EXPECT_EQ(fs::status(pods.dir + "/testbed-keys.yaml").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  for (const auto& secret : YAML::LoadAllFromFile(pods.dir + "/testbed-keys.yaml")) {
    const std::string node = secret["metadata"]["labels"]["testbed/node"].as<std::string>();
    const std::string key_dir = pods.dir + "/key-" + node;
    fs::create_directories(key_dir);
    std::ofstream(key_dir + "/host.key") << secret["stringData"]["host.key"].as<std::string>();
    fs::permissions(key_dir + "/host.key", fs::perms::owner_read | fs::perms::owner_write);
  }
  EXPECT_NE(resources[0]["data"]["placement.yaml"].as<std::string>().find("keys:"),
            std::string::npos);

  // kubelet: each pod's sandbox, with its loopback up (the CNI loopback plugin's doing).
  for (size_t i = 1; i < resources.size(); ++i) {
    const std::string node = resources[i]["metadata"]["labels"]["testbed/node"].as<std::string>();
    Pod& pod = pods.pods[node];
    pod.manifest = resources[i];
    pod.run_dir = pods.dir + "/run-" + node;
    pod.sandbox = spawn_in_netns("", {"unshare", "-n", "sleep", "600"}, "/dev/null");
    for (int t = 0; t < 100 && !fs::exists("/proc/" + std::to_string(pod.sandbox) + "/ns/net"); ++t)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // unshare has exec'd sleep
    ASSERT_EQ(in_pod(pod, {"ip", "link", "set", "lo", "up"}).status, 0);
  }
  // meshnet, both pods on one machine: a veth pair with the Topology's names and addresses.
  const auto link = topologies[0]["spec"]["links"][0];
  const Pod& a =
      pods.pods.at(topologies[0]["metadata"]["labels"]["testbed/node"].as<std::string>());
  const Pod& b =
      pods.pods.at(link["peer_pod"].as<std::string>().substr(std::string("tb-tbt-k8s-").size()));
  const CommandResult veth =
      run_in_netns("", {"ip", "link", "add", link["local_intf"].as<std::string>(), "netns",
                        std::to_string(a.sandbox), "type", "veth", "peer",
                        link["peer_intf"].as<std::string>(), "netns", std::to_string(b.sandbox)});
  ASSERT_EQ(veth.status, 0) << veth.output;
  for (const auto& [pod, dev, ip] :
       {std::tuple{&a, link["local_intf"].as<std::string>(), link["local_ip"].as<std::string>()},
        std::tuple{&b, link["peer_intf"].as<std::string>(), link["peer_ip"].as<std::string>()}}) {
    ASSERT_EQ(in_pod(*pod, {"ip", "addr", "add", ip, "dev", dev}).status, 0);
    ASSERT_EQ(in_pod(*pod, {"ip", "link", "set", dev, "up"}).status, 0);
  }

  // Each pod's sidecar, with its manifest's command (the ConfigMap mounted elsewhere here).
  const std::string bin_dir = fs::path(TESTBED_BIN).parent_path();
  for (auto& [node, pod] : pods.pods) {
    std::vector<std::string> argv = {"nsenter",
                                     "-t",
                                     std::to_string(pod.sandbox),
                                     "-n",
                                     "env",
                                     "TESTBED_RUN_DIR=" + pod.run_dir,
                                     "PATH=" + bin_dir + ":/usr/sbin:/usr/bin:/sbin:/bin"};
    for (const auto& a : pod.manifest["spec"]["initContainers"][0]["command"]) {
      const std::string with_key = std::regex_replace(
          a.as<std::string>(), std::regex("/etc/testbed-key/"), pods.dir + "/key-" + node + "/");
      argv.push_back(
          std::regex_replace(with_key, std::regex("/etc/testbed/"), pods.dir + "/config/"));
    }
    pod.sidecar = spawn_in_netns("", argv, pods.dir + "/sidecar-" + node + ".log");
  }
  for (auto& [node, pod] : pods.pods) {
    bool up = false;
    for (int i = 0; i < 600 && !up; ++i) {  // the manifest allows 300 probes a second apart
      up = ready(pod);
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(up) << node << "'s startupProbe never passed; see " << pods.dir << "/sidecar-"
                    << node << ".log";
  }

  // The pods reach each other over the shaped, delayed link: 20 ms each way.
  const Pod& left = pods.pods.at("left");
  const Pod& right = pods.pods.at("right");
  const CommandResult ping = in_pod(left, {"ping", "-c", "10", "-i", "0.05", "-q", "198.18.0.2"});
  ASSERT_EQ(ping.status, 0) << ping.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ping.output, m, std::regex(R"(= [\d.]+/([\d.]+)/)")));
  EXPECT_NEAR(std::stod(m[1]), 40.0, 3.0) << ping.output;
  std::cout << "[ measured ] pod to pod RTT " << m[1] << " ms for 20 ms each way\n";
  EXPECT_NE(in_pod(left, {"tc", "qdisc", "show"}).output.find("tbf"), std::string::npos);
  // The exporter listens on the pod's addresses, for the cluster's Prometheus: here asked
  // from the other pod, at left's end of the link.
  const std::string port =
      left.manifest["metadata"]["annotations"]["prometheus.io/port"].as<std::string>();
  const std::string left_ip = link["local_ip"].as<std::string>();
  const CommandResult scrape =
      in_pod(right, {"curl", "-s", "-m", "10",
                     "http://" + left_ip.substr(0, left_ip.find('/')) + ":" + port + "/metrics"});
  EXPECT_NE(scrape.output.find("testbed_link_transmit_bytes_total{"), std::string::npos)
      << scrape.output.substr(0, 500);

  // kubelet stops the left pod: its sidecar takes its slice down and leaves the pod's
  // namespace and meshnet's interface, with its address, as they were given.
  Pod& leaving = pods.pods.at("left");
  EXPECT_EQ(Pods::stop_sidecar(leaving), 0);
  EXPECT_FALSE(fs::exists(leaving.run_dir + "/" + kLab + "/state.json"));
  EXPECT_EQ(in_pod(leaving, {"tc", "qdisc", "show"}).output.find("tbf"), std::string::npos);
  EXPECT_EQ(in_pod(leaving, {"ip", "route"}).output.find(" via "), std::string::npos);
  EXPECT_NE(in_pod(leaving, {"ip", "-o", "addr"}).output.find(left_ip), std::string::npos);
  EXPECT_TRUE(ready(right)) << "the other pod's slice is still up";
  EXPECT_EQ(Pods::stop_sidecar(pods.pods.at("right")), 0);
}

}  // namespace
}  // namespace testbed::it
