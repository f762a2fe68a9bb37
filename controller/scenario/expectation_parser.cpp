// One line of a scenario's `expect:` list, parsed (scenario.h lists the forms). The
// scenario parser reports a refusal at the line's FILE:LINE:COL and checks that the
// strategies it names are the scenario's.
#include <algorithm>
#include <regex>

#include "controller/scenario/scenario.h"

namespace testbed {

const std::vector<std::string>& expectation_figures() {
  static const std::vector<std::string> kFigures = {"mean_iteration_s",
                                                    "samples_per_s",
                                                    "max_iteration_s",
                                                    "aux_share",
                                                    "time_to_loss",
                                                    "final_loss",
                                                    "wan_bytes",
                                                    "job_wan_bytes",
                                                    "max_staleness",
                                                    "comm_time_s",
                                                    "comm_per_iteration_s",
                                                    "model_ratio",
                                                    "release_lateness_p99_ms",
                                                    "emulator_lateness_p99_ms",
                                                    "cpu_saturated_share",
                                                    "min_rate_ratio",
                                                    "failover_updates_lost",
                                                    "failover_recovery_s",
                                                    "divergence_at_heal",
                                                    "catch_up_s",
                                                    "compute_utilization",
                                                    "member_utilization",
                                                    "membership_changes"};
  return kFigures;
}

std::optional<Expectation> parse_expectation(const std::string& text, std::string& why) {
  static const std::regex kNoFail(R"(\s*no node failed\s*)");
  static const std::regex kHealthy(R"(\s*emulation healthy\s*)");
  // A figure of a strategy: name(strategy).
  const std::string fig = R"(([a-z_][a-z0-9_]*)\s*\(\s*([a-z0-9+-]+)\s*\))";
  const std::string op = R"(\s*(>=|<=|>|<)\s*)", num = R"(([0-9]*\.?[0-9]+))";
  static const std::regex kRatio(
      R"(\s*([a-z0-9+-]+)\s*/\s*([a-z0-9+-]+)\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)\s*)");
  static const std::regex kBound(R"(\s*)" + fig + op + num + R"(\s*)");
  static const std::regex kFigureRatio(R"(\s*)" + fig + R"(\s*/\s*)" + fig + op + num + R"(\s*)");
  static const std::regex kRelative(R"(\s*)" + fig + op + num + R"(\s*\*\s*)" + fig + R"(\s*)");
  const auto known = [&](const std::string& metric) {
    const auto& all = expectation_figures();
    if (std::find(all.begin(), all.end(), metric) != all.end()) return true;
    std::string names;
    for (const auto& f : all) names += (names.empty() ? "" : ", ") + f;
    why = "unknown figure '" + metric + "' (" + names + ")";
    return false;
  };
  Expectation e;
  e.text = text;
  std::smatch m;
  if (std::regex_match(e.text, kNoFail)) {
    e.kind = Expectation::Kind::kNoNodeFailed;
  } else if (std::regex_match(e.text, kHealthy)) {
    e.kind = Expectation::Kind::kEmulationHealthy;
  } else if (std::regex_match(e.text, m, kRatio)) {
    e.kind = Expectation::Kind::kRatio;
    e.strategy = m[1];
    e.over = m[2];
    e.op = m[3];
    e.value = std::stod(m[4]);
  } else if (std::regex_match(e.text, m, kBound)) {
    e.kind = Expectation::Kind::kBound;
    e.metric = m[1];
    e.strategy = m[2];
    e.op = m[3];
    e.value = std::stod(m[4]);
    if (!known(e.metric)) return std::nullopt;
  } else if (std::regex_match(e.text, m, kFigureRatio)) {
    e.kind = Expectation::Kind::kFigureRatio;
    e.metric = m[1];
    e.strategy = m[2];
    e.over_metric = m[3];
    e.over = m[4];
    e.op = m[5];
    e.value = std::stod(m[6]);
    if (!known(e.metric) || !known(e.over_metric)) return std::nullopt;
  } else if (std::regex_match(e.text, m, kRelative)) {
    e.kind = Expectation::Kind::kRelative;
    e.metric = m[1];
    e.strategy = m[2];
    e.op = m[3];
    e.value = std::stod(m[4]);
    e.over_metric = m[5];
    e.over = m[6];
    if (!known(e.metric) || !known(e.over_metric)) return std::nullopt;
  } else {
    why = "'" + e.text +
          "' is not 'A / B >= X', 'figure(A) <= X', 'figure(A) / figure(B) <= X', "
          "'figure(A) <= X * figure(B)', 'no node failed' or 'emulation healthy'";
    return std::nullopt;
  }
  return e;
}

}  // namespace testbed
