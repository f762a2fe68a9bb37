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

}  // namespace testbed
