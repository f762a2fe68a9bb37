// `testbed export k8s`: a lab as Kubernetes resources for meshnet-cni (docs/multihost.md).
// Kubernetes runs each data center as a pod and meshnet makes its point-to-point links, a
// veth when both pods share a machine and a VXLAN otherwise; the links keep the testbed's
// interface names and addresses, so each pod's slice of the plan finds them. Pure.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/transport/curve_keys.h"
#include "controller/lab/plan.h"

namespace testbed {

struct K8sExportOptions {
  std::string k8s_namespace = "default";  // where the resources go
  std::string image = "testbed:latest";   // the sidecar's: Debian 12 with testbed installed
  std::string profile_text;               // the profile, as the sidecars will read it
  // Where each pod's exporter listens for the cluster's Prometheus. 9464 is the port
  // OpenTelemetry's Prometheus exporters use by convention, free of the kubelet's (10250)
  // and node_exporter's (9100).
  int metrics_port = 9464;
  // Each pod's CURVE key pair, by pod name (docs/multihost.md#security): the public halves
  // go into the ConfigMap's placement, each secret half into a Secret that only its own pod
  // mounts. Empty: the pods run without keys.
  std::map<std::string, CurveKeyPair> pod_keys;
};

struct Manifest {
  std::string file;  // relative to the output directory
  std::string text;  // YAML
};

// A testbed name as Kubernetes spells names: lower case, '_' as '-' (not checked).
std::string k8s_spelling(const std::string& name);

// The pod (and Topology) name of a node: its namespace name (tb-LAB-NODE) as a DNS label,
// lower case with '_' as '-'. Throws std::invalid_argument when that is not a valid label.
std::string k8s_pod_name(const Plan& plan, const std::string& node);

// meshnet's Topology resources, one per node, as data: each link at both of its ends, with
// the same uid, the interfaces as the plan names them and the ends' /30 addresses.
nlohmann::ordered_json meshnet_topologies(const Plan& plan, const K8sExportOptions& options);

// YAML documents, one per element of `docs`, keys in the order the JSON holds them.
std::string to_yaml_documents(const nlohmann::ordered_json& docs);

// Every file the export writes: with keys, testbed-keys.yaml holds the Secrets. Throws
// std::invalid_argument (names that do not fit Kubernetes) before anything is written.
std::vector<Manifest> k8s_manifests(const Plan& plan, const K8sExportOptions& options);

}  // namespace testbed
