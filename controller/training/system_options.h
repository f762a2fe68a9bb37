// A system's own options, declared once in its registry entry (strategy_registry.cpp): the
// command line's `--NAME VALUE`, the profile's `workload.NAME`, `train --help`, the value
// checks and the typed values its agents receive (TrainingSetup::policy) all come from the
// one table, so a new system adds options without touching the option parser, the usage
// text or the setup command.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed {

struct OptionSpec {
  enum class Type { kInt, kReal, kChoice };
  std::string name{};  // without the dashes; also the profile's workload key
  Type type = Type::kInt;
  std::string fallback{};  // the default, as text a user could give
  // kInt and kReal: the inclusive range a value must fall in.
  double min = 0, max = 0;
  std::vector<std::string> choices{};  // kChoice: the values it takes
  std::string help{};                  // one line for `train --help`
  // The field of the policy's JSON the value goes to (the agents' side reads it by this
  // name); "" : the option's name.
  std::string field{};

  const std::string& key() const { return field.empty() ? name : field; }
};

// A number as a user would write it, for a default (0.7, 0.0004): the tables' fallbacks.
std::string number_text(double v);

// "" when `value` is one the option takes, else why not (for a UsageError that names where
// the value came from).
std::string check_option(const OptionSpec& spec, const std::string& value);

// `[--NAME ARG]` for the usage text: ARG is N, X or the choices joined by `|`.
std::string option_usage(const OptionSpec& spec);

// The options' typed values, keyed by their fields: `given` (checked already) where it has
// the option, the default elsewhere. Numbers go as numbers, choices as strings.
nlohmann::json option_values(const std::vector<OptionSpec>& specs,
                             const std::map<std::string, std::string>& given);

}  // namespace testbed
