#include "controller/options/core_options.h"

#include <stdexcept>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "controller/options/workload_settings.h"
#include "controller/training/strategies.h"
#include "controller/training/strategy_registry.h"

namespace testbed {
namespace {

// "" when `parse` takes `value`, else what its std::invalid_argument says.
template <auto Parse>
std::string refusal_of(const std::string& value) {
  try {
    Parse(value);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

std::string check_strategy(const std::string& value) {
  // NAME@NODE: the star's hub or the parameter server fixed at NODE (checked at run time
  // against the lab's nodes; `*` in a scenario sweeps every node).
  const auto [base, node] = split_placed(value);
  const StrategyTraits* traits = find_strategy(base);
  if (value.find('@') != std::string::npos) {
    if (node.empty()) return "expected NAME@NODE, e.g. ps@chicago";
    if (traits != nullptr && traits->at_node) return "";
    std::string placed;
    for (const auto& t : strategy_registry())
      if (t.at_node) placed += (placed.empty() ? "" : ", ") + t.name;
    return "only " + placed + " take @NODE";
  }
  if (traits != nullptr) return "";
  std::string known;
  for (const auto& s : all_strategy_names()) known += (known.empty() ? "" : ", ") + s;
  return "unknown strategy '" + value + "' (known: " + known + ")";
}

std::string check_model(const std::string& value) {
  if (is_job(value)) return "";
  try {
    find_model(value);
    return "";
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()) + ", or a job: logreg, mf, lmf, sparse-lr";
  }
}

std::string check_servers(const std::string& value) {
  return value.empty() ? "expected all, best, or node names separated by commas" : "";
}
std::string check_workers(const std::string& value) {
  return value.empty() ? "expected all, or node names separated by commas" : "";
}
std::vector<OptionSpec> make_core_options() {
  using T = OptionSpec::Type;
  // A bound that keeps a count in an int with room to spare: no run comes near it.
  constexpr double kMostCount = 1e9;
  return {
      {.name = "strategy", .type = T::kText, .check = check_strategy},
      {.name = "model", .type = T::kText, .check = check_model, .arg = "M|logreg|mf|lmf|sparse-lr"},
      {.name = "scale", .type = T::kReal, .max = kUnbounded, .arg = "S", .open = true},
      {.name = "iterations", .type = T::kInt, .min = 1, .max = kMostCount},
      {.name = "compute-ms",
       .type = T::kText,
       .check = refusal_of<parse_compute_range>,
       .arg = "MS|MIN-MAX"},
      {.name = "compute-as", .type = T::kChoice, .choices = {"wait", "cpu"}},
      {.name = "staleness",
       .type = T::kInt,
       .min = 0,
       .max = 1000,  // clocks; a bound beyond this is no bound on any run we make
       // none: WSP with no delta (its choices alone decide)
       .words = {{"none", TrainingSetup::kNoBound}},
       .arg = "S|none",
       .unit = "clocks"},
      {.name = "servers", .type = T::kText, .check = check_servers, .arg = "all|best|A,B"},
      {.name = "workers", .type = T::kText, .check = check_workers, .arg = "all|A,B"},
      {.name = "target-loss", .type = T::kReal, .max = kUnbounded, .open = true},
      {.name = "max-seconds", .type = T::kReal, .max = kUnbounded, .arg = "T", .open = true},
      // An evaluation interval goes to the agents in whole milliseconds (training_setup.h):
      // below one, it would be none.
      {.name = "eval-every",
       .type = T::kReal,
       .min = 0.001,
       .max = kUnbounded,
       .arg = "T",
       .unit = "seconds"},
      {.name = "server", .type = T::kText, .check = check_node_name, .arg = "NODE"},
      {.name = "workers-per-dc",
       .type = T::kInt,
       .min = 1,
       .max = 64,
       .arg = "K",
       .unit = "workers"},
      // share: a share of BSP's; converged: Sec. 5.3 of Gaia; long-run: DRPS's rows
      {.name = "target-rule", .type = T::kChoice, .choices = {"share", "converged", "long-run"}},
      {.name = "slow-dc",
       .type = T::kText,
       .check = refusal_of<parse_slowdowns>,
       .arg = "NODE:FACTOR,..."},
      {.name = "stragglers",
       .type = T::kText,
       .check = refusal_of<parse_stragglers>,
       .arg = "SHARE:FACTOR"},
      // Gaia's t counts passes; a Gaia profile says so for its baselines as well, so that
      // they train the same job (docs/gaia.md).
      {.name = "gaia-t", .type = T::kChoice, .choices = {"pass", "clock"}},
      {.name = "chunk", .type = T::kInt, .min = 1, .max = kMostCount, .arg = "ELEMENTS"},
      {.name = "seed", .type = T::kInt, .min = 0, .max = 9.2e18},  // below 2^63
      // 0 rebuilds the policy after every iteration
      {.name = "update-time", .type = T::kReal, .max = kUnbounded, .arg = "T"},
      {.name = "primary-busy-bound", .type = T::kInt, .min = 1, .max = 1000, .unit = "chunks"},
      {.name = "aux-queue-length", .type = T::kInt, .min = 1, .max = 1000, .unit = "chunks"},
  };
}

}  // namespace

const std::vector<OptionSpec>& core_options() {
  static const std::vector<OptionSpec> kOptions = make_core_options();
  return kOptions;
}

const OptionSpec* find_core_option(const std::string& name) {
  for (const auto& o : core_options())
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace testbed
