#include "controller/topology/yaml_diagnostics.h"

#include <algorithm>
#include <tuple>

namespace testbed {

YAML::Node load_yaml(const std::string& text, const std::string& file) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ValidationError({{file, e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg}});
  }
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

void YamlDiagnostics::error(const YAML::Node& at, const std::string& message) {
  const YAML::Mark m = at.Mark();
  diagnostics_.push_back({file_, m.line < 0 ? 0 : m.line + 1, m.column + 1, message});
}

void YamlDiagnostics::check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                                 const std::string& where) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint;
    // Two edits catch a typo or a swapped pair without suggesting unrelated words.
    for (const auto& candidate : allowed) {
      if (edit_distance(key, candidate) <= 2) hint = " (did you mean '" + candidate + "'?)";
    }
    error(it->first, "unknown key '" + key + "' " + where + hint);
  }
}

bool YamlDiagnostics::scalar(const YAML::Node& n, const std::string& what, std::string& out) {
  if (!n.IsScalar()) {
    error(n, what + " must be a single value");
    return false;
  }
  out = n.Scalar();
  return true;
}

void YamlDiagnostics::finish() {
  if (diagnostics_.empty()) return;
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  throw ValidationError(diagnostics_);
}

}  // namespace testbed
