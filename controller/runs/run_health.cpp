#include "controller/runs/run_health.h"

#include <iostream>

#include "controller/dynamics/link_control.h"
#include "controller/health/health_wire.h"
#include "netns/libnl_kernel.h"

namespace testbed {
namespace {

nlohmann::json health_event(const HealthReport& report, const std::string& strategy) {
  nlohmann::json event = report.to_json();
  event["event"] = "health";
  event["strategy"] = strategy;
  return event;
}

}  // namespace

std::unique_ptr<HealthMonitor> start_run_health(zmq::context_t& context, const std::string& lab_dir,
                                                const Plan& plan, const std::string& strategy) {
  // The running figures go out on the monitor's thread, through a socket of its own (a
  // ZeroMQ socket belongs to one thread), created on first use.
  auto sink = std::make_shared<std::unique_ptr<ZmqMetricsSink>>();
  auto publish = [&context, lab_dir, strategy, sink](const HealthReport& report) {
    if (!*sink) *sink = std::make_unique<ZmqMetricsSink>(context, metrics_socket(lab_dir));
    (*sink)->publish(health_event(report, strategy));
  };
  auto monitor = std::make_unique<HealthMonitor>(std::make_unique<LibnlKernel>(), lab_dir,
                                                 live_directions(plan, read_current(lab_dir)),
                                                 HealthThresholds{}, publish);
  monitor->start();
  return monitor;
}

void finish_run_health(HealthMonitor& monitor, nlohmann::json& summary, const std::string& strategy,
                       MetricsSink& metrics, const std::string& this_host,
                       const std::map<std::string, HealthReport>& elsewhere) {
  HealthReport report = monitor.stop();
  nlohmann::json by_host;
  if (!elsewhere.empty()) {
    by_host = health_by_host(report, this_host, elsewhere);
    report = merge_host_health(std::move(report), this_host, elsewhere);
  }
  summary["health"] = report.to_json();
  if (!by_host.is_null()) summary["health"]["by_host"] = by_host;
  metrics.publish(health_event(report, strategy));
  if (!report.healthy()) std::cerr << "testbed: " << report.warning() << "\n";
  if (const std::string note = report.note_line(); !note.empty())
    std::cerr << "testbed: " << note << "\n";
}

void add_health_figures(const std::vector<nlohmann::json>& summaries, StrategyOutcome& outcome) {
  for (const auto& s : summaries) {
    if (!s.contains("health")) continue;
    const auto& h = s["health"];
    auto worst = [&](const std::string& figure, double value, bool low_is_bad) {
      const auto it = outcome.figures.find(figure);
      if (it == outcome.figures.end() || (low_is_bad ? value < it->second : value > it->second))
        outcome.figures[figure] = value;
    };
    worst("release_lateness_p99_ms", h["release_lateness_ms"]["p99"].get<double>(), false);
    if (h.contains("emulator_lateness_ms"))  // results from before the split lack it
      worst("emulator_lateness_p99_ms", h["emulator_lateness_ms"]["p99"].get<double>(), false);
    worst("cpu_saturated_share", h["cpu_saturated_share"].get<double>(), false);
    if (!h["min_backlogged_rate_ratio"].is_null())
      worst("min_rate_ratio", h["min_backlogged_rate_ratio"].get<double>(), true);
    for (const auto& p : h["problems"]) outcome.health_problems.push_back(p.get<std::string>());
  }
}

std::string health_warning(const nlohmann::json& summary) {
  if (!summary.contains("health")) return "";
  return unhealthy_line(summary["health"]["problems"].get<std::vector<std::string>>());
}

}  // namespace testbed
