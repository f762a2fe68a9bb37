// The pods of `testbed export k8s`: one per data center, named as its meshnet Topology, with
// the testbed as a native sidecar that applies that node's slice of the plan inside the
// pod's network namespace (TBF, the delay line, routes, the timeline), and a ConfigMap
// holding the profile and the placement the sidecars read. Pure: text in, resources out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "controller/hosts/k8s_manifests.h"

namespace testbed {

// Every pod its own host: `hosts: {POD: [NODE]}`, the placement file each sidecar passes
// to `testbed up --hosts ... --host POD`, with `keys:` (the public halves) when the export
// has keys.
std::string pod_placement_yaml(const Plan& plan, const K8sExportOptions& options);

// The ConfigMap, then one Pod per node, as data. With keys, each pod mounts its own Secret
// (k8s_key_secrets) as one file and its sidecar passes it to `up --key`.
nlohmann::ordered_json k8s_pods(const Plan& plan, const K8sExportOptions& options);

// One Secret per pod, `POD-key`, holding that pod's key file (host.key) and nothing else:
// a pod mounts only its own, and no secret half is ever in the ConfigMap.
nlohmann::ordered_json k8s_key_secrets(const Plan& plan, const K8sExportOptions& options);

}  // namespace testbed
