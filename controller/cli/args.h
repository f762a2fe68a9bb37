// A small command-line parser for the verbs: --flag, --option VALUE or --option=VALUE,
// positionals, and everything after "--" kept verbatim (for `exec`).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/options/usage_error.h"

namespace testbed::cli {

class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::set<std::string>& flags,
       const std::set<std::string>& options);

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> option(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  const std::vector<std::string>& rest() const { return rest_; }
  const std::set<std::string>& flags() const { return flags_; }
  const std::map<std::string, std::string>& options() const { return options_; }
  // The positional at `i`, or `fallback`; throws when there are more than `max`.
  std::string positional(size_t i, const std::string& fallback = "") const;
  void at_most(size_t max, const std::string& usage) const;

 private:
  std::set<std::string> flags_;
  std::map<std::string, std::string> options_;
  std::vector<std::string> positionals_;
  std::vector<std::string> rest_;
};

}  // namespace testbed::cli
