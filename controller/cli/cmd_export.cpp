// testbed export k8s FILE --out DIR [--namespace NS] [--image IMAGE] [--metrics-port P]
// [--no-keys]: the lab as resources for Kubernetes with meshnet-cni (docs/multihost.md),
// with a CURVE key pair per pod unless told not to (the public halves in the ConfigMap's
// placement, each secret half in a Secret of its own). Writes only the files it names, and
// nothing at all when the profile or a name is invalid.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/hosts/k8s_manifests.h"
#include "controller/topology/port_number.h"
#include "netns/private_files.h"

namespace testbed::cli {
namespace {

const char* const kUsage =
    "testbed export k8s FILE --out DIR [--namespace NS] [--image IMAGE] [--metrics-port P] "
    "[--no-keys]";

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int run_export(const Argv& argv) {
  Args args(argv, {"no-keys"}, {"out", "namespace", "image", "metrics-port"});
  args.at_most(2, kUsage);
  if (args.positionals().size() != 2 || !args.option("out")) {
    throw UsageError(std::string("usage: ") + kUsage);
  }
  if (args.positional(0) != "k8s") {
    throw UsageError("unknown target '" + args.positional(0) + "'; known: k8s");
  }
  const auto plan = load_plan(args.positional(1));
  if (!plan) return kExitInvalid;
  K8sExportOptions options;
  if (auto ns = args.option("namespace")) options.k8s_namespace = *ns;
  if (auto image = args.option("image")) options.image = *image;
  if (auto port = args.option("metrics-port")) {
    const auto number = parse_port(*port);
    if (!number)
      throw UsageError("--metrics-port must be a TCP port (1-65535), not '" + *port + "'");
    options.metrics_port = *number;
  }
  options.profile_text = read_all(plan->source_file);
  std::vector<Manifest> manifests;
  try {
    if (!args.flag("no-keys")) {
      for (const auto& n : plan->nodes)
        options.pod_keys[k8s_pod_name(*plan, n.name)] = make_curve_key_pair();
    }
    manifests = k8s_manifests(*plan, options);
  } catch (const std::invalid_argument& e) {
    std::cerr << plan->source_file << ": " << e.what() << "\n";
    return kExitInvalid;
  }
  // A new directory, or one only this user can write (private_files.h): the export runs
  // as root on a cluster's node as often as not.
  const OutputDir dir = OutputDir::open(*args.option("out"));
  for (const auto& m : manifests) {
    dir.write(m.file, m.text);
    std::cout << dir.shown(m.file) << "\n";
  }
  if (!options.pod_keys.empty()) {
    std::cout << "testbed-keys.yaml holds every pod's secret key (0600): apply it with the "
                 "rest, keep it out of version control\n";
  }
  return kExitOk;
}

}  // namespace testbed::cli
