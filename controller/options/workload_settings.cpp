#include "controller/options/workload_settings.h"

#include <stdexcept>

#include "controller/options/core_options.h"
#include "controller/training/strategy_registry.h"

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

const std::vector<std::string>& workload_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& o : core_options()) keys.push_back(o.name);
    // Each system's own options, from its registry entry's table.
    for (auto& name : system_option_names()) keys.push_back(std::move(name));
    return keys;
  }();
  return kKeys;
}

std::string check_workload_setting(const std::string& key, const std::string& value) {
  if (const OptionSpec* core = find_core_option(key)) return check_option(*core, value);
  if (const StrategyTraits* owner = option_owner(key))
    return check_option(*find_option(*owner, key), value);
  return "unknown workload setting";
}

const SettingRules& workload_rules() {
  static const SettingRules kRules{workload_keys(), check_workload_setting};
  return kRules;
}

std::map<std::string, double> parse_slowdowns(const std::string& text) {
  std::map<std::string, double> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    if (colon == std::string::npos || name.empty())
      throw std::invalid_argument("expected NODE:FACTOR[,NODE:FACTOR...], e.g. tokyo:4");
    size_t used = 0;
    double factor = 0;
    try {
      factor = std::stod(item.substr(colon + 1), &used);
    } catch (const std::exception&) {
    }
    if (used == 0 || used != item.size() - colon - 1 || !(factor >= 1) || factor > 1000)
      throw std::invalid_argument("the factor of " + name + " must be a number from 1 to 1000");
    if (!out.emplace(name, factor).second) throw std::invalid_argument(name + " is named twice");
    start = comma + 1;
  }
  return out;
}

}  // namespace testbed
