#include "workload.h"

#include <stdexcept>

namespace testbed {

const std::vector<ModelProfile>& model_profiles() {
  static const std::vector<ModelProfile> kModels = {
      {"resnet50", 23000000},   // 92 MB
      {"resnet152", 60000000},  // 240 MB
      {"alexnet", 64000000},    // 256 MB
      {"vgg16", 138000000},     // 552 MB
      {"mobilenet", 4200000},   // 17 MB
  };
  return kModels;
}

const ModelProfile& find_model(const std::string& name) {
  for (const auto& m : model_profiles()) {
    if (m.name == name) return m;
  }
  std::string known;
  for (const auto& m : model_profiles()) known += (known.empty() ? "" : ", ") + m.name;
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace testbed
