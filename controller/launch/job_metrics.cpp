#include "controller/launch/job_metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "controller/training/loss_curve.h"

namespace testbed {
namespace {

// A gauge's name becomes a label value: keep it printable and bounded.
bool valid_gauge_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

std::optional<double> finite_number(const nlohmann::json& j, const char* key, std::string& why) {
  if (!j.contains(key)) return std::nullopt;
  const auto& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    why = std::string("'") + key + "' is not a finite number";
    return std::nullopt;
  }
  return v.get<double>();
}

nlohmann::json stats(std::vector<double> v) {
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  const auto at = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
  };
  return {{"mean", mean},
          {"median", at(0.5)},
          {"p95", at(0.95)},
          {"min", v.front()},
          {"max", v.back()}};
}

}  // namespace

std::optional<MetricLine> parse_metric_line(std::string_view line, std::string& why) {
  if (line.size() > kMaxMetricsLine) {
    why = "longer than " + std::to_string(kMaxMetricsLine) + " bytes";
    return std::nullopt;
  }
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    why = "not JSON";
    return std::nullopt;
  }
  if (!j.is_object()) {
    why = "not a JSON object";
    return std::nullopt;
  }
  MetricLine m;
  if (j.contains("iteration")) {
    const auto& it = j["iteration"];
    if (!it.is_number_integer() || it.get<int64_t>() < 0) {
      why = "'iteration' is not a whole number >= 0";
      return std::nullopt;
    }
    m.iteration = it.get<uint64_t>();
  }
  why.clear();
  m.loss = finite_number(j, "loss", why);
  m.samples = finite_number(j, "samples", why);
  m.seconds = finite_number(j, "seconds", why);
  m.compute_s = finite_number(j, "compute_s", why);
  if (!why.empty()) return std::nullopt;
  if ((m.samples && *m.samples < 0) || (m.seconds && *m.seconds < 0) ||
      (m.compute_s && *m.compute_s < 0)) {
    why = "'samples', 'seconds' and 'compute_s' cannot be negative";
    return std::nullopt;
  }
  if (m.compute_s && (!m.iteration || (m.seconds && *m.compute_s > *m.seconds))) {
    why = "'compute_s' is an iteration's part: it needs 'iteration' and is at most 'seconds'";
    return std::nullopt;
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "iteration" || key == "loss" || key == "samples" || key == "seconds" ||
        key == "compute_s")
      continue;
    if (!value.is_number() || !std::isfinite(value.get<double>())) continue;  // not a gauge
    if (!valid_gauge_name(key)) {
      why = "gauge name '" + key.substr(0, 64) + "' is not [A-Za-z0-9_.-]{1,64}";
      return std::nullopt;
    }
    m.gauges[key] = value.get<double>();
  }
  return m;
}

JobMetrics::JobMetrics(std::vector<std::string> nodes) {
  for (auto& n : nodes) {
    Node node;
    node.name = std::move(n);
    nodes_.push_back(std::move(node));
  }
}

size_t JobMetrics::malformed() const {
  size_t n = 0;
  for (const auto& node : nodes_) n += node.malformed;
  return n;
}

std::vector<nlohmann::json> JobMetrics::add(size_t rank, std::string_view line, double t_s,
                                            const std::string& job) {
  Node& node = nodes_.at(rank);
  std::string why;
  const auto m = parse_metric_line(line, why);
  if (!m) {
    ++node.malformed;
    node.last_error = why;
    return {};
  }
  ++accepted_;
  std::vector<nlohmann::json> events;
  const nlohmann::json who = {{"strategy", job}, {"node", node.name}};
  if (m->iteration) {
    const double seconds = m->seconds ? *m->seconds : t_s - node.last_iteration_t;
    node.last_iteration_t = t_s;
    node.last_iteration = m->iteration;
    ++node.iterations;
    node.iteration_s.push_back(seconds);
    if (m->samples) node.samples += *m->samples;
    nlohmann::json e = who;
    e["event"] = "job_iteration";
    e["seconds"] = seconds;
    if (m->compute_s) {
      // Without its own seconds, the iteration is the time since the last line: no more.
      const double compute = std::min(*m->compute_s, seconds);
      node.compute_s = node.compute_s.value_or(0) + compute;
      e["compute_s"] = compute;
    }
    if (m->samples) e["samples"] = *m->samples;
    events.push_back(std::move(e));
  }
  if (m->loss) {
    node.losses.emplace_back(t_s, *m->loss);
    nlohmann::json e = who;
    e["event"] = "job_loss";
    e["loss"] = *m->loss;
    events.push_back(std::move(e));
  }
  for (const auto& [name, value] : m->gauges) {
    node.gauges[name] = value;
    nlohmann::json e = who;
    e["event"] = "job_value";
    e["name"] = name;
    e["value"] = value;
    events.push_back(std::move(e));
  }
  return events;
}

nlohmann::json JobMetrics::summary(std::optional<double> target_loss) const {
  nlohmann::json nodes = nlohmann::json::array();
  // The run's loss curve is the mean of the latest losses of the nodes that report one
  // (a data-parallel job may report from rank 0 only), defined once each has reported:
  // the built-in strategies' rule (loss_curve.h), over the reporting nodes.
  std::vector<size_t> reporting;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!nodes_[i].losses.empty()) reporting.push_back(i);
  struct Point {
    double t;
    int worker;
    double loss;
  };
  std::vector<Point> points;
  for (size_t w = 0; w < reporting.size(); ++w)
    for (const auto& [t, loss] : nodes_[reporting[w]].losses)
      points.push_back({t, static_cast<int>(w), loss});
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.t < b.t; });
  LossCurve curve(static_cast<int>(reporting.size()));
  for (const auto& p : points) curve.add(p.worker, p.t, p.loss);

  for (const auto& n : nodes_) {
    double busy = 0;
    for (double s : n.iteration_s) busy += s;
    nlohmann::json j = {
        {"node", n.name},
        {"iterations", n.iterations},
        {"last_iteration",
         n.last_iteration ? nlohmann::json(*n.last_iteration) : nlohmann::json(nullptr)},
        {"iteration_s", stats(n.iteration_s)},
        {"iteration_times_s", n.iteration_s},
        {"samples", n.samples},
        {"samples_per_s", busy > 0 ? n.samples / busy : 0.0},
        {"final_loss",
         n.losses.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.losses.back().second)},
        {"gauges", n.gauges},
        {"compute_s", n.compute_s ? nlohmann::json(*n.compute_s) : nlohmann::json(nullptr)},
        {"malformed_lines", n.malformed}};
    if (!n.last_error.empty()) j["last_malformed_reason"] = n.last_error;
    nodes.push_back(std::move(j));
  }
  nlohmann::json s = {{"nodes", nodes},
                      {"loss_curve", curve.to_json()},
                      {"loss_reporting_nodes", reporting.size()},
                      {"metric_lines", {{"accepted", accepted_}, {"malformed", malformed()}}}};
  s["final_loss"] =
      curve.points().empty() ? nlohmann::json(nullptr) : nlohmann::json(curve.points().back().loss);
  // The time always present, null when not asked for or not reached, as the built-in runs
  // have it; the target only when there is one (readers take it as a number).
  if (target_loss) s["target_loss"] = *target_loss;
  const auto t = target_loss ? curve.time_to(*target_loss) : std::nullopt;
  s["time_to_target_s"] = t ? nlohmann::json(*t) : nlohmann::json(nullptr);
  // The run's figures as a built-in run gives them, so scenarios and reports read both
  // alike: iteration i takes as long as its slowest node's i-th iteration (data-parallel
  // nodes wait for each other), and the lab's samples per second are the nodes' sum.
  std::vector<double> slowest;
  double samples_per_s = 0;
  for (const auto& n : nodes_) {
    for (size_t i = 0; i < n.iteration_s.size(); ++i) {
      if (slowest.size() <= i) slowest.push_back(0);
      slowest[i] = std::max(slowest[i], n.iteration_s[i]);
    }
    double busy = 0;
    for (double x : n.iteration_s) busy += x;
    if (busy > 0) samples_per_s += n.samples / busy;
  }
  s["iteration_s"] = slowest;
  s["mean_iteration_s"] = slowest.empty() ? 0.0
                                          : std::accumulate(slowest.begin(), slowest.end(), 0.0) /
                                                static_cast<double>(slowest.size());
  s["samples_per_s"] = samples_per_s;
  return s;
}

}  // namespace testbed
