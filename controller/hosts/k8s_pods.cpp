#include "controller/hosts/k8s_pods.h"

#include <map>
#include <vector>

#include "controller/hosts/placement_keys.h"

namespace testbed {
namespace {

using Json = nlohmann::ordered_json;

// Inside the sidecar, where the ConfigMap is mounted.
constexpr const char* kConfigDir = "/etc/testbed";
// And where the pod's own Secret's key file is: one file (subPath), so that it is the
// regular file `up --key` insists on and not the link a whole Secret volume would give.
constexpr const char* kKeyFile = "/etc/testbed-key/host.key";
// The key file's mode in the pod: read by root only (0400), as `up --key` requires.
constexpr int kKeyFileMode = 0400;

std::string secret_name(const std::string& pod) {
  return pod + "-key";
}

// tb-LAB, spelled as pod names are.
std::string config_map_name(const Plan& plan) {
  return "tb-" + k8s_spelling(plan.lab);
}

// The sidecar's shell: give the pod's own network namespace the name the plan knows it by
// (ip netns attach: a bind mount under /run/netns, hence SYS_ADMIN), then apply this pod's
// slice to it, adopting it, and stay up until Kubernetes stops the pod.
std::string sidecar_script(const Plan& plan, const PlannedNode& node,
                           const K8sExportOptions& options) {
  const std::string pod = k8s_pod_name(plan, node.name);
  return "ip netns attach " + node.ns + " $$ && exec testbed up " + kConfigDir +
         "/profile.yaml --hosts " + kConfigDir + "/placement.yaml --host " + pod +
         " --adopt --prometheus off --metrics 0.0.0.0:" + std::to_string(options.metrics_port) +
         (options.pod_keys.empty() ? "" : std::string(" --key ") + kKeyFile) + " --foreground";
}

Json pod_resource(const Plan& plan, const PlannedNode& node, const K8sExportOptions& options) {
  const std::string port = std::to_string(options.metrics_port);
  Json sidecar = {
      {"name", "testbed"},
      {"image", options.image},
      // A native sidecar (Kubernetes 1.29 and later): started before the pod's own
      // containers, which wait for its startupProbe, and stopped after them.
      {"restartPolicy", "Always"},
      {"command", {"/bin/sh", "-c", sidecar_script(plan, node, options)}},
      // NET_ADMIN: qdiscs, routes, the delay line's iptables rules and NFQUEUE; NET_RAW:
      // iptables; SYS_ADMIN: the netns name's bind mount and the node's UTS namespace.
      {"securityContext", {{"capabilities", {{"add", {"NET_ADMIN", "NET_RAW", "SYS_ADMIN"}}}}}},
      {"ports", {{{"name", "metrics"}, {"containerPort", options.metrics_port}}}},
      // Up to five minutes for a slice to come up on a loaded node, asked each second.
      {"startupProbe",
       {{"exec", {{"command", {"testbed", "status", plan.lab, "--ready"}}}},
        {"periodSeconds", 1},
        {"failureThreshold", 300}}},
      {"volumeMounts", {{{"name", "testbed"}, {"mountPath", kConfigDir}, {"readOnly", true}}}}};
  // A stand-in for the user's own containers (their training code, GPU requests and all),
  // which share the pod's network namespace and so its shaped links.
  Json volumes = {{{"name", "testbed"}, {"configMap", {{"name", config_map_name(plan)}}}}};
  if (!options.pod_keys.empty()) {
    const std::string pod = k8s_pod_name(plan, node.name);
    sidecar["volumeMounts"].push_back({{"name", "testbed-key"},
                                       {"mountPath", kKeyFile},
                                       {"subPath", "host.key"},
                                       {"readOnly", true}});
    volumes.push_back(
        {{"name", "testbed-key"},
         {"secret", {{"secretName", secret_name(pod)}, {"defaultMode", kKeyFileMode}}}});
  }
  const Json workload = {
      {"name", "workload"}, {"image", "debian:12-slim"}, {"command", {"sleep", "infinity"}}};
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", k8s_pod_name(plan, node.name)},
        {"namespace", options.k8s_namespace},
        {"labels", {{"testbed/lab", plan.lab}, {"testbed/node", node.name}}},
        {"annotations",
         {{"prometheus.io/scrape", "true"},
          {"prometheus.io/port", port},
          {"prometheus.io/path", "/metrics"}}}}},
      {"spec", {{"initContainers", {sidecar}}, {"containers", {workload}}, {"volumes", volumes}}}};
}

}  // namespace

std::string pod_placement_yaml(const Plan& plan, const K8sExportOptions& options) {
  std::string out =
      "# Each data center's pod is its own host: the placement the sidecars read.\n"
      "hosts:\n";
  std::vector<std::string> pods;
  std::map<std::string, std::string> key_of;
  for (const auto& n : plan.nodes) {
    pods.push_back(k8s_pod_name(plan, n.name));
    out += "  " + pods.back() + ": [" + n.name + "]\n";
    if (!options.pod_keys.empty())
      key_of[pods.back()] = options.pod_keys.at(pods.back()).public_key;
  }
  return key_of.empty() ? out : placement_with_keys(out, key_of, pods);
}

Json k8s_key_secrets(const Plan& plan, const K8sExportOptions& options) {
  Json out = Json::array();
  for (const auto& n : plan.nodes) {
    const std::string pod = k8s_pod_name(plan, n.name);
    out.push_back({{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"metadata",
                    {{"name", secret_name(pod)},
                     {"namespace", options.k8s_namespace},
                     {"labels", {{"testbed/lab", plan.lab}, {"testbed/node", n.name}}}}},
                   {"type", "Opaque"},
                   {"stringData",
                    {{"host.key", curve_key_file_text(options.pod_keys.at(pod),
                                                      "pod " + pod + " of lab " + plan.lab)}}}});
  }
  return out;
}

Json k8s_pods(const Plan& plan, const K8sExportOptions& options) {
  Json out = Json::array();
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata",
                  {{"name", config_map_name(plan)},
                   {"namespace", options.k8s_namespace},
                   {"labels", {{"testbed/lab", plan.lab}}}}},
                 {"data",
                  {{"profile.yaml", options.profile_text},
                   {"placement.yaml", pod_placement_yaml(plan, options)}}}});
  for (const auto& n : plan.nodes) out.push_back(pod_resource(plan, n, options));
  return out;
}

}  // namespace testbed
