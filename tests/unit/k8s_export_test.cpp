// `testbed export k8s`: meshnet Topology resources (controller/hosts/k8s_manifests.*).
// The goldens in tests/golden/k8s/ are rewritten with TESTBED_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "controller/hosts/host_placement.h"
#include "controller/hosts/k8s_manifests.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "read_text.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan plan_of(const std::string& profile) {
  // Parsed from text under a relative name, so the golden does not depend on the checkout.
  return make_plan(
      parse_profile_text(read_text(TESTBED_PROFILES_DIR + "/" + profile), "profiles/" + profile),
      false);
}

class K8sGolden : public testing::TestWithParam<std::string> {};

K8sExportOptions with_profile(const std::string& profile) {
  K8sExportOptions o;
  o.profile_text = read_text(TESTBED_PROFILES_DIR + "/" + profile);
  return o;
}

TEST_P(K8sGolden, ManifestsMatch) {
  const std::string profile = GetParam() + ".yaml";
  const auto manifests = k8s_manifests(plan_of(profile), with_profile(profile));
  ASSERT_EQ(manifests.size(), 3u);
  for (const auto& m : manifests) {
    const std::string golden = TESTBED_GOLDEN_DIR + "/k8s/" + GetParam() + "-" + m.file;
    if (std::getenv("TESTBED_UPDATE_GOLDEN")) std::ofstream(golden) << m.text;
    EXPECT_EQ(m.text, read_text(golden)) << "differs from " << golden;
  }
}

// What Kubernetes and meshnet would read: a pod for each Topology, of the same name (meshnet
// finds a pod's links by it); annotation values that are text; each sidecar bringing up its
// own pod's slice from the placement the ConfigMap carries, which puts that node there.
TEST(K8sExport, EachPodMeetsItsTopologyAndBringsUpItsOwnSlice) {
  const Plan plan = plan_of("internet2.yaml");
  const auto manifests = k8s_manifests(plan, with_profile("internet2.yaml"));
  std::map<std::string, std::string> text;
  for (const auto& m : manifests) text[m.file] = m.text;
  std::set<std::string> topologies;
  for (const auto& t : YAML::LoadAll(text.at("meshnet-topology.yaml")))
    topologies.insert(t["metadata"]["name"].as<std::string>());
  const auto pods = YAML::LoadAll(text.at("testbed-pods.yaml"));
  ASSERT_EQ(pods.size(), plan.nodes.size() + 1);
  ASSERT_EQ(pods[0]["kind"].as<std::string>(), "ConfigMap");
  EXPECT_EQ(pods[0]["data"]["profile.yaml"].as<std::string>(),
            read_text(TESTBED_PROFILES_DIR + "/internet2.yaml"));
  const HostPlacement placement = parse_host_placement_text(
      pods[0]["data"]["placement.yaml"].as<std::string>(), "placement.yaml", plan);
  for (size_t i = 1; i < pods.size(); ++i) {
    const auto& pod = pods[i];
    const std::string name = pod["metadata"]["name"].as<std::string>();
    EXPECT_TRUE(topologies.count(name)) << name;
    const std::string node = pod["metadata"]["labels"]["testbed/node"].as<std::string>();
    EXPECT_EQ(placement.host_of.at(node), name) << "each pod its own host";
    for (const char* a : {"prometheus.io/scrape", "prometheus.io/port"}) {
      EXPECT_EQ(pod["metadata"]["annotations"][a].Tag(), "!") << name << ": " << a << " quoted";
    }
    const auto& sidecar = pod["spec"]["initContainers"][0];
    EXPECT_EQ(sidecar["restartPolicy"].as<std::string>(), "Always") << "a native sidecar";
    const std::string script = sidecar["command"][2].as<std::string>();
    EXPECT_NE(script.find("--host " + name + " --adopt"), std::string::npos) << script;
    EXPECT_NE(script.find("ip netns attach tb-internet2-" + node + " $$"), std::string::npos)
        << script;
    EXPECT_EQ(sidecar["startupProbe"]["exec"]["command"][3].as<std::string>(), "--ready");
  }
}

INSTANTIATE_TEST_SUITE_P(Wans, K8sGolden, testing::Values("internet2", "b4"));

TEST(K8sExport, EveryLinkAppearsAtBothEndsWithOneUidAndMatchingEnds) {
  for (const std::string profile : {"internet2.yaml", "b4.yaml"}) {
    const Plan plan = plan_of(profile);
    const nlohmann::ordered_json topologies = meshnet_topologies(plan, {});
    ASSERT_EQ(topologies.size(), plan.nodes.size());
    std::map<std::string, const nlohmann::ordered_json*> by_pod;
    for (const auto& t : topologies) {
      EXPECT_EQ(t["apiVersion"], "networkop.co.uk/v1beta1");
      EXPECT_EQ(t["kind"], "Topology");
      by_pod[t["metadata"]["name"].get<std::string>()] = &t;
    }
    std::map<int64_t, int> ends_per_uid;
    for (const auto& t : topologies) {
      const std::string pod = t["metadata"]["name"];
      for (const auto& link : t["spec"]["links"]) {
        ++ends_per_uid[link["uid"].get<int64_t>()];
        const nlohmann::ordered_json& peer = *by_pod.at(link["peer_pod"].get<std::string>());
        const auto& peer_links = peer["spec"]["links"];
        const auto other = std::find_if(peer_links.begin(), peer_links.end(),
                                        [&](const auto& l) { return l["uid"] == link["uid"]; });
        ASSERT_NE(other, peer_links.end()) << pod << " uid " << link["uid"];
        EXPECT_EQ((*other)["peer_pod"], pod);
        EXPECT_EQ((*other)["local_intf"], link["peer_intf"]);
        EXPECT_EQ((*other)["peer_intf"], link["local_intf"]);
        EXPECT_EQ((*other)["local_ip"], link["peer_ip"]);
        EXPECT_EQ((*other)["peer_ip"], link["local_ip"]);
      }
    }
    ASSERT_EQ(ends_per_uid.size(), plan.links.size()) << profile;
    for (const auto& [uid, ends] : ends_per_uid) EXPECT_EQ(ends, 2) << "uid " << uid;
    // The interfaces and addresses are the plan's, so each pod's slice finds them.
    for (const auto& l : plan.links) {
      const auto& links = (*by_pod.at(k8s_pod_name(plan, l.a)))["spec"]["links"];
      const auto mine = std::find_if(links.begin(), links.end(), [&](const auto& x) {
        return x["uid"] == static_cast<int64_t>(l.index) + 1;
      });
      ASSERT_NE(mine, links.end());
      EXPECT_EQ((*mine)["local_intf"], l.if_a);
      EXPECT_EQ((*mine)["peer_intf"], l.if_b);
      EXPECT_EQ((*mine)["local_ip"], Ipv4Prefix(Ipv4Address{l.subnet.address.value + 1}, 30).str());
    }
  }
}

Plan plan_of_text(const std::string& yaml) {
  return make_plan(parse_profile_text(yaml, "p.yaml"), false);
}

TEST(K8sExport, PodNamesAreTheNamespacesAsDnsLabels) {
  const Plan plan = plan_of_text(
      "lab: tbt-k8s\nnodes:\n  new_york: {}\n  b: {}\nlinks:\n  - endpoints: [new_york, b]\n"
      "    bandwidth: 10mbit\n");
  EXPECT_EQ(k8s_pod_name(plan, "new_york"), "tb-tbt-k8s-new-york");
  EXPECT_EQ(k8s_pod_name(plan, "b"), "tb-tbt-k8s-b");
  EXPECT_THROW(k8s_pod_name(plan, "nobody"), std::invalid_argument);
  K8sExportOptions in_bad_namespace;
  in_bad_namespace.k8s_namespace = "Lab_1";
  EXPECT_THROW(k8s_manifests(plan, in_bad_namespace), std::invalid_argument);
  K8sExportOptions in_labs;
  in_labs.k8s_namespace = "labs";
  EXPECT_EQ(meshnet_topologies(plan, in_labs)[0]["metadata"]["namespace"], "labs");
}

TEST(K8sExport, NodesThatWouldShareAPodNameAreRefused) {
  const Plan plan = plan_of_text(
      "lab: tbt-k8s\nnodes:\n  a_b: {}\n  a-b: {}\nlinks:\n  - endpoints: [a_b, a-b]\n"
      "    bandwidth: 10mbit\n");
  try {
    k8s_manifests(plan, {});
    FAIL() << "two nodes exported as one pod";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tb-tbt-k8s-a-b"), std::string::npos) << e.what();
  }
}

// With keys: the ConfigMap's placement carries every pod's public key and no secret; each
// pod has a Secret of its own holding its key file, mounts that one only, as one file, and
// its sidecar passes it to `up --key`.
TEST(K8sExport, EachPodMountsOnlyItsOwnKeyAndTheConfigMapHoldsNoSecret) {
  const Plan plan = plan_of_text(
      "lab: tbt-k8s\nnodes:\n  left: {}\n  right: {}\nlinks:\n  - endpoints: [left, right]\n"
      "    bandwidth: 10mbit\n");
  K8sExportOptions options;
  // Fixed keys (valid Z85, 40 characters each): the test needs no libzmq entropy.
  options.pod_keys["tb-tbt-k8s-left"] = {std::string(40, 'a'), std::string(40, 'b')};
  options.pod_keys["tb-tbt-k8s-right"] = {std::string(40, 'c'), std::string(40, 'd')};
  const auto manifests = k8s_manifests(plan, options);
  std::map<std::string, std::string> text;
  for (const auto& m : manifests) text[m.file] = m.text;
  ASSERT_TRUE(text.count("testbed-keys.yaml"));
  for (const char* secret : {"bbbbbbbb", "dddddddd"}) {
    EXPECT_EQ(text.at("testbed-pods.yaml").find(secret), std::string::npos);
    EXPECT_EQ(text.at("placement.yaml").find(secret), std::string::npos);
  }
  const HostPlacement placement = parse_host_placement_text(text.at("placement.yaml"), "p", plan);
  EXPECT_EQ(placement.keys.at("tb-tbt-k8s-left"), std::string(40, 'a'));
  EXPECT_EQ(placement.keys.at("tb-tbt-k8s-right"), std::string(40, 'c'));

  std::map<std::string, std::string> secret_of;  // Secret name -> its key file
  for (const auto& s : YAML::LoadAll(text.at("testbed-keys.yaml"))) {
    EXPECT_EQ(s["kind"].as<std::string>(), "Secret");
    secret_of[s["metadata"]["name"].as<std::string>()] =
        s["stringData"]["host.key"].as<std::string>();
  }
  ASSERT_EQ(secret_of.size(), 2u);
  EXPECT_NE(secret_of.at("tb-tbt-k8s-left-key").find("secret = " + std::string(40, 'b')),
            std::string::npos);
  EXPECT_NE(secret_of.at("tb-tbt-k8s-right-key").find("public = " + std::string(40, 'c')),
            std::string::npos);

  const auto resources = YAML::LoadAll(text.at("testbed-pods.yaml"));
  ASSERT_EQ(resources.size(), 3u);
  for (size_t i = 1; i < resources.size(); ++i) {
    const auto& pod = resources[i];
    const std::string name = pod["metadata"]["name"].as<std::string>();
    std::vector<std::string> secrets;
    for (const auto& v : pod["spec"]["volumes"]) {
      if (v["secret"]) {
        secrets.push_back(v["secret"]["secretName"].as<std::string>());
        EXPECT_EQ(v["secret"]["defaultMode"].as<int>(), 0400);
      }
    }
    EXPECT_EQ(secrets, std::vector<std::string>{name + "-key"});
    const auto& sidecar = pod["spec"]["initContainers"][0];
    bool mounted_as_file = false;
    for (const auto& m : sidecar["volumeMounts"]) {
      mounted_as_file |= m["subPath"] && m["subPath"].as<std::string>() == "host.key" &&
                         m["mountPath"].as<std::string>() == "/etc/testbed-key/host.key";
    }
    EXPECT_TRUE(mounted_as_file) << name;
    EXPECT_NE(sidecar["command"][2].as<std::string>().find("--key /etc/testbed-key/host.key"),
              std::string::npos);
  }

  // A pod without a key pair is refused, not exported keyless.
  options.pod_keys.erase("tb-tbt-k8s-right");
  EXPECT_THROW(k8s_manifests(plan, options), std::invalid_argument);
}

}  // namespace
}  // namespace testbed
