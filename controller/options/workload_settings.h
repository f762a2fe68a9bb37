// The settings a run takes, as a profile's `workload:` section and `testbed train`'s options
// write them (the same words): their keys, the check of each value, and the models a run
// synchronizes, by parameter count (APSP Table II; MobileNet v1 from its paper), scaled to
// fit a run on one machine. run_options.h resolves them into one run's options.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/jobs/compute_time.h"
#include "controller/topology/topology_parser.h"

namespace testbed {

struct ModelProfile {
  std::string name;
  uint64_t parameters;  // fp32, so 4 bytes each
};

const std::vector<ModelProfile>& model_profiles();
// Throws std::invalid_argument naming the known models.
const ModelProfile& find_model(const std::string& name);

// Compute times (ComputeRange, parse_compute_range, draw_compute_ms) are the agent's: the
// workers of a parameter server draw their own (agent/jobs/compute_time.h).

// The keys a profile's `workload:` section may set; they are `testbed train`'s options.
const std::vector<std::string>& workload_keys();
// Empty when `value` is acceptable for `key`, else why not.
std::string check_workload_setting(const std::string& key, const std::string& value);
// slow-dc "tokyo:4,seoul:2": compute times of those nodes multiplied by the factor (>= 1).
// Throws std::invalid_argument saying what is wrong.
std::map<std::string, double> parse_slowdowns(const std::string& text);

// workload_keys() and check_workload_setting() as the topology parser takes them.
const SettingRules& workload_rules();
// A profile as every verb reads it: its topology, and its workload checked by these rules.
inline Topology parse_profile_file(const std::string& path) {
  return parse_topology_file(path, workload_rules());
}
inline Topology parse_profile_text(const std::string& text, const std::string& file_name) {
  return parse_topology_text(text, file_name, workload_rules());
}

}  // namespace testbed
