// What the strict YAML parsers (profiles, scenarios) share: errors collected at their
// FILE:LINE:COL, unknown keys with a did-you-mean, and one ValidationError with all of
// them, in file order, at the end.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "controller/topology/diagnostics.h"

namespace testbed {

// `text` parsed, or a ValidationError at the syntax error's FILE:LINE:COL.
YAML::Node load_yaml(const std::string& text, const std::string& file);

class YamlDiagnostics {
 public:
  explicit YamlDiagnostics(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  std::vector<Diagnostic>& list() { return diagnostics_; }
  bool empty() const { return diagnostics_.empty(); }

  void error(const YAML::Node& at, const std::string& message);
  // Reports every key of `map` not in `allowed`, suggesting a close one.
  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                  const std::string& where);
  // The scalar's text, or false (and an error) when `n` is not a single value.
  bool scalar(const YAML::Node& n, const std::string& what, std::string& out);
  // Throws ValidationError with every error, sorted by position, if there is any.
  void finish();

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
};

// Levenshtein distance, for did-you-mean suggestions.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace testbed
