#include "controller/options/workload_settings.h"

#include <charconv>
#include <stdexcept>

#include "agent/jobs/job.h"
#include "controller/topology/units.h"
#include "controller/training/gaia/gaia_groups.h"
#include "controller/training/strategies.h"
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

namespace {

bool whole(const std::string& text, long long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "" when `parse` takes `value`, else what its std::invalid_argument says.
template <typename Parse>
std::string refusal_of(Parse parse, const std::string& value) {
  try {
    parse(value);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

}  // namespace

const std::vector<std::string>& workload_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys = {"strategy",
                                     "model",
                                     "scale",
                                     "iterations",
                                     "compute-ms",
                                     "compute-as",
                                     "chunk",
                                     "seed",
                                     "update-time",
                                     "staleness",
                                     "servers",
                                     "workers",
                                     "target-loss",
                                     "max-seconds",
                                     "eval-every",
                                     "server",
                                     "apsp-mode",
                                     "capacity",
                                     "draws",
                                     "primary-busy-bound",
                                     "aux-queue-length",
                                     "workers-per-dc",
                                     "target-rule",
                                     "slow-dc",
                                     "stragglers",
                                     "gaia-threshold",
                                     "gaia-ds",
                                     "gaia-soft",
                                     "store",
                                     "memory-budget-mb",
                                     "index",
                                     "index-prune",
                                     "index-k",
                                     "partition",
                                     "parallel",
                                     "delay-bound",
                                     "aggregators",
                                     "replica",
                                     "div-max",
                                     "distribution",
                                     "gaia-local",
                                     "gaia-groups",
                                     "gaia-t",
                                     "gaia-partition",
                                     "monitor",
                                     "standby",
                                     "checkpoint-every"};
    // Each system's own options, from its registry entry's table.
    for (auto& name : system_option_names()) keys.push_back(std::move(name));
    return keys;
  }();
  return kKeys;
}

std::string check_workload_setting(const std::string& key, const std::string& value) {
  long long n = 0;
  if (const StrategyTraits* owner = option_owner(key))
    return check_option(*find_option(*owner, key), value);
  if (key == "strategy") {
    // NAME@NODE: the star's hub or the parameter server fixed at NODE (checked at run time
    // against the lab's nodes; `*` in a scenario sweeps every node).
    const auto [base, node] = split_placed(value);
    const StrategyTraits* traits = find_strategy(base);
    if (value.find('@') != std::string::npos) {
      if (node.empty()) return "expected NAME@NODE, e.g. apsp@chicago";
      if (traits == nullptr || !traits->at_node)
        return "only ps and the placement strategies (apsp, ps-most-connected, ps-random) take "
               "@NODE";
      return "";
    }
    if (traits != nullptr) return "";
    std::string known;
    for (const auto& s : all_strategy_names()) known += (known.empty() ? "" : ", ") + s;
    return "unknown strategy '" + value + "' (known: " + known + ")";
  }
  if (key == "model") {
    if (is_job(value)) return "";
    try {
      find_model(value);
      return "";
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()) + ", or a job: logreg, mf, lmf, sparse-lr";
    }
  }
  if (key == "iterations" || key == "chunk") {
    return whole(value, n) && n >= 1 && n <= 1000000000 ? "" : "expected a whole number from 1";
  }
  if (key == "staleness")
    return value == "none" || (whole(value, n) && n >= 0 && n <= 1000)
               ? ""
               : "expected clocks, 0-1000, or none (WSP)";
  if (key == "servers") {
    return value.empty() ? "expected all, best, or node names separated by commas" : "";
  }
  if (key == "workers")
    return value.empty() ? "expected all, or node names separated by commas" : "";
  if (key == "server") return value.empty() ? "expected a node's name" : "";
  if (key == "apsp-mode")
    return value == "model" || value == "native" ? "" : "expected model or native";
  if (key == "capacity")
    return value == "undirected" || value == "directed" ? "" : "expected undirected or directed";
  if (key == "primary-busy-bound" || key == "aux-queue-length")
    return whole(value, n) && n >= 1 && n <= 1000 ? "" : "expected chunks, 1-1000";
  if (key == "delay-bound")
    return whole(value, n) && n >= 1 && n <= 1000000 ? "" : "expected model versions, 1-1000000";
  if (key == "aggregators")
    return value == "all" || (whole(value, n) && n >= 0 && n <= 1000)
               ? ""
               : "expected all, or a number of aggregators, 0-1000";
  if (key == "replica" || key == "standby") return value.empty() ? "expected a node's name" : "";
  if (key == "checkpoint-every")
    return whole(value, n) && n >= 1 && n <= 1000000 ? "" : "expected updates, 1-1000000";
  if (key == "div-max")
    return whole(value, n) && n >= 0 && n <= 1000000 ? "" : "expected updates, 0-1000000";
  if (key == "distribution") return value == "on" || value == "off" ? "" : "expected on or off";
  if (key == "monitor")
    return value == "plan" || value == "arrivals" ? "" : "expected plan or arrivals";
  if (key == "draws") return whole(value, n) && n >= 1 && n <= 1000 ? "" : "expected 1-1000";
  // An evaluation interval is sent to the agents in whole milliseconds (training_setup.h):
  // below one, it would be none.
  if (key == "eval-every") {
    try {
      size_t used = 0;
      const double x = std::stod(value, &used);
      return used == value.size() && x >= 0.001 ? "" : "expected seconds, at least 0.001";
    } catch (const std::exception&) {
      return "expected seconds, at least 0.001";
    }
  }
  if (key == "target-loss" || key == "max-seconds") {
    try {
      size_t used = 0;
      const double x = std::stod(value, &used);
      return used == value.size() && x > 0 ? "" : "expected a positive number";
    } catch (const std::exception&) {
      return "expected a positive number";
    }
  }
  if (key == "seed") return whole(value, n) && n >= 0 ? "" : "expected a whole number";
  if (key == "workers-per-dc")
    return whole(value, n) && n >= 1 && n <= 64 ? "" : "expected workers, 1-64";
  if (key == "target-rule")
    return value == "share" || value == "converged" || value == "long-run"
               ? ""
               : "expected share, converged or long-run";
  if (key == "gaia-ds")
    return value == "off" || (whole(value, n) && n >= 0 && n <= 1000)
               ? ""
               : "expected clocks 0-1000, or off";
  if (key == "gaia-soft") return value == "on" || value == "off" ? "" : "expected on or off";
  if (key == "gaia-local")  // inside a data center: BSP, or SSP with a bound of 1-100 clocks
    return value == "bsp" ||
                   (value.rfind("ssp:", 0) == 0 && whole(value.substr(4), n) && n >= 1 && n <= 100)
               ? ""
               : "expected bsp or ssp:S (S clocks, 1-100)";
  if (key == "gaia-t") return value == "clock" || value == "pass" ? "" : "expected clock or pass";
  if (key == "gaia-groups") return check_gaia_groups(value);
  if (key == "gaia-partition")
    return value == "continue" || value == "block" ? "" : "expected continue or block";
  if (key == "store") return value == "memory" || value == "disk" ? "" : "expected memory or disk";
  if (key == "memory-budget-mb")
    return whole(value, n) && n >= 1 && n <= 65536 ? "" : "expected MiB, 1-65536";
  if (key == "parallel")
    return value == "bsp" || value == "ssp" || value == "async" || value == "wsp"
               ? ""
               : "expected bsp, ssp, async or wsp";
  if (key == "index" || key == "partition")
    return value == "on" || value == "off" ? "" : "expected on or off";
  if (key == "index-k") return whole(value, n) && n >= 1 && n <= 100000 ? "" : "expected 1-100000";
  if (key == "index-prune") {
    try {
      size_t used = 0;
      const double x = std::stod(value, &used);
      return used == value.size() && x > 0 && x <= 1 ? "" : "expected a share above 0, at most 1";
    } catch (const std::exception&) {
      return "expected a share above 0, at most 1";
    }
  }
  if (key == "gaia-threshold") {
    std::string why;
    const auto f = parse_percent(value, why);
    if (!f) return why;
    return f->value > 0 && f->value < 1 ? "" : "expected a percentage above 0 and below 100%";
  }
  if (key == "scale" || key == "update-time") {
    // update-time 0 rebuilds the policy after every iteration; a scale of 0 is no model.
    const bool zero_ok = key == "update-time";
    const std::string expected = zero_ok ? "expected a number >= 0" : "expected a positive number";
    try {
      size_t used = 0;
      const double x = std::stod(value, &used);
      return used == value.size() && (x > 0 || (zero_ok && x == 0)) ? "" : expected;
    } catch (const std::exception&) {
      return expected;
    }
  }
  // Settings whose parser says what is wrong by throwing.
  if (key == "slow-dc") return refusal_of(parse_slowdowns, value);
  if (key == "stragglers") return refusal_of(parse_stragglers, value);
  if (key == "compute-ms") return refusal_of(parse_compute_range, value);
  if (key == "compute-as") return value == "wait" || value == "cpu" ? "" : "expected wait or cpu";
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
