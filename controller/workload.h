// The models a run synchronizes, by parameter count (APSP Table II; MobileNet v1 from its
// paper), scaled to fit a run on one machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

struct ModelProfile {
  std::string name;
  uint64_t parameters;  // fp32, so 4 bytes each
};

const std::vector<ModelProfile>& model_profiles();
// Throws std::invalid_argument naming the known models.
const ModelProfile& find_model(const std::string& name);

// A compute time per iteration: fixed (min == max) or uniform in [min, max] milliseconds.
struct ComputeRange {
  int min_ms = 0, max_ms = 0;
};
// "200" or "150-250"; throws std::invalid_argument.
ComputeRange parse_compute_range(const std::string& text);
// The draw for one node and iteration: a function of (seed, node, iteration) only, so a
// run repeats exactly and nodes are independent.
int draw_compute_ms(const ComputeRange& range, uint64_t seed, int node, uint64_t iteration);

// The keys a profile's `workload:` section may set; they are `testbed train`'s options.
const std::vector<std::string>& workload_keys();
// Empty when `value` is acceptable for `key`, else why not.
std::string check_workload_setting(const std::string& key, const std::string& value);

}  // namespace testbed
