// What `testbed launch` starts, decided before anything runs: which nodes take part and
// in which rank order, each rank's command line after placeholders are replaced, and its
// environment (the names torchrun sets, so init_process_group(init_method="env://") works
// unmodified, plus the testbed's own). Pure: tested without root.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "controller/lab/plan.h"

namespace testbed {

// Bad input to `launch` (an unknown node, an empty command, a bad placeholder): nothing
// is started.
class LaunchInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// torchrun's default rendezvous port; any free port of the first node works, and a lab's
// node runs nothing else on it.
constexpr int kDefaultMasterPort = 29500;

struct LaunchRequest {
  std::string lab;
  std::string nodes = "all";         // "all" or "N1,N2,..."; ranks follow this order
  std::vector<std::string> command;  // argv; {node}, {rank}, {addr:NODE} are replaced
  std::string job;                   // the job's name in metrics and results
  std::string run_dir;               // this launch's directory: logs, metric files
  int master_port = kDefaultMasterPort;
};

struct RankPlan {
  int rank = 0;
  std::string node, ns, address;
  std::string host;  // of a lab spread over hosts, when not this one ("": here)
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value": the testbed's, set over the caller's
  std::string metrics_path;      // $TESTBED_METRICS
  std::string stdout_path, stderr_path;
};

// From the lab's plan (its nodes' names, namespaces and addresses). Throws LaunchInputError
// naming what is wrong.
std::vector<RankPlan> plan_launch(const Plan& lab_plan, const LaunchRequest& request);

// One argument with {node}, {rank} and {addr:NODE} replaced; other braces stay as they
// are (a Python one-liner has its own). Throws LaunchInputError for {addr:} of a node the
// lab does not have.
std::string substitute_placeholders(const std::string& arg, int rank, const std::string& node,
                                    const Plan& lab_plan);

// The name a job gets when none is given: the script's for an interpreter
// ("python3 train.py" -> "train"), else the program's.
std::string default_job_name(const std::vector<std::string>& command);

// `base` (the caller's environment, "NAME=value") with `overrides` set over it.
std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::vector<std::string>& overrides);

}  // namespace testbed
