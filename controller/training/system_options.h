// Options declared once, as tables of OptionSpec: the core's (controller/options/
// core_options.h) and each system's, in its registry entry (strategy_registry.cpp). The
// command line's `--NAME VALUE`, the profile's `workload.NAME`, `train --help`, the value
// checks and the typed values (a system's go to its agents as TrainingSetup::policy) all
// come from the tables, so a new system adds options without touching the option parser,
// the usage text or the setup command.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace testbed {

struct OptionSpec {
  enum class Type {
    kInt,      // a whole number in [min, max]
    kReal,     // a number in [min, max] ((min, max) when `open`)
    kChoice,   // one of `choices`
    kPercent,  // a share written P% or as a fraction, in (min, max) when `open`
    kText,     // any text `check` takes (non-empty when it has no check)
  };
  std::string name{};  // without the dashes; also the profile's workload key
  Type type = Type::kInt;
  // The default, as text a user could give; "" : unset (its typed value is null, and the
  // reader of the values says what unset means, e.g. "one per worker").
  std::string fallback{};
  // kInt, kReal and kPercent: the range a value must fall in.
  double min = 0, max = 0;
  std::vector<std::string> choices{};  // kChoice: the values it takes
  std::string help{};                  // one line for `train --help`
  // The field of the typed values the value goes to (a system's agents read it by this
  // name); "" : the option's name.
  std::string field{};
  // kInt and kReal: words taken besides a number, each standing for one ("off" for -1).
  std::vector<std::pair<std::string, double>> words{};
  // Any type, after its own check: "" when the value is one it takes, else why not.
  std::string (*check)(const std::string&) = nullptr;
  std::string arg{};   // the usage's ARG when the type's own (N, X, the choices) says too little
  std::string unit{};  // what a number counts, for the error ("clocks")
  bool open = false;   // the range leaves out min and max

  const std::string& key() const { return field.empty() ? name : field; }
};

// No upper bound for a number.
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// A kText option's check for a node's name (--server, --replica, --standby): not empty; the
// run checks it against the lab's nodes.
std::string check_node_name(const std::string& value);

// A number as a user would write it, for a default (0.7, 0.0004): the tables' fallbacks.
std::string number_text(double v);

// "" when `value` is one the option takes, else why not (for a UsageError that names where
// the value came from).
std::string check_option(const OptionSpec& spec, const std::string& value);

// The typed value of text `check_option` took: an integer (kInt), a number (kReal,
// kPercent, as a share), a string (kChoice, kText); null for "" . Throws
// std::invalid_argument with check_option's reason otherwise.
nlohmann::json option_value(const OptionSpec& spec, const std::string& value);

// `[--NAME ARG]` for the usage text: ARG is `arg`, else N, X, P% or the choices joined by `|`.
std::string option_usage(const OptionSpec& spec);

// The options' typed values, keyed by their fields: `given` (checked already) where it has
// the option, the default elsewhere.
nlohmann::json option_values(const std::vector<OptionSpec>& specs,
                             const std::map<std::string, std::string>& given);

// A typed value's field as a run reads it: `unset` when the values lack it or leave it
// unset (a run made by hand, as tests make them, has no values).
template <typename T>
T option_or(const nlohmann::json& values, const char* field, T unset) {
  if (!values.is_object()) return unset;
  const auto it = values.find(field);
  return it == values.end() || it->is_null() ? unset : it->template get<T>();
}

// A table's rules across its options (one needs another, two exclude each other): "" when
// `values` (option_values') keep them, else why not. `given` names the options a user set.
using OptionsRule = std::string (*)(const nlohmann::json& values,
                                    const std::set<std::string>& given);

}  // namespace testbed
