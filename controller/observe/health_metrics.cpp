#include "controller/observe/health_metrics.h"

#include <limits>
#include <utility>

namespace testbed {

using prometheus::BuildGauge;

HealthMetrics::HealthMetrics(prometheus::Registry& registry, std::string lab)
    : lab_(std::move(lab)),
      healthy_(BuildGauge()
                   .Name("testbed_health_healthy")
                   .Help("1 while the run's emulation is within every health threshold, else 0.")
                   .Register(registry)),
      lateness_(BuildGauge()
                    .Name("testbed_health_release_lateness_seconds")
                    .Help("How late the delay lines released packets against their due time "
                          "during the run (statistic p50, p99 or max; part all, or emulator: "
                          "less the host's stalls of the delay line).")
                    .Register(registry)),
      cpu_saturated_(BuildGauge()
                         .Name("testbed_health_cpu_saturated_ratio")
                         .Help("Share of the run the host's CPUs were at least 95% busy.")
                         .Register(registry)),
      nfqueue_dropped_(BuildGauge()
                           .Name("testbed_health_nfqueue_dropped_packets")
                           .Help("Packets the kernel dropped before a delay line saw them, "
                                 "during the run.")
                           .Register(registry)),
      rate_ratio_(BuildGauge()
                      .Name("testbed_health_backlogged_rate_ratio")
                      .Help("Per link direction, the rate achieved while backlogged over the "
                            "configured rate, during the run.")
                      .Register(registry)) {}

void HealthMetrics::apply(const nlohmann::json& event) {
  if (event.value("event", "") != "health") return;
  const std::string strategy = event.at("strategy").get<std::string>();
  const prometheus::Labels run = {{"lab", lab_}, {"strategy", strategy}};
  healthy_.Add(run).Set(event.at("healthy").get<bool>() ? 1 : 0);
  cpu_saturated_.Add(run).Set(event.at("cpu_saturated_share").get<double>());
  nfqueue_dropped_.Add(run).Set(event.at("nfqueue_dropped").get<double>());
  // A gauge may not carry Prometheus's reserved "quantile" label (promtool), hence
  // "statistic".
  for (const auto& [part, field] :
       {std::pair{"all", "release_lateness_ms"}, std::pair{"emulator", "emulator_lateness_ms"}}) {
    const auto& late = event.at(field);
    for (const char* key : {"p50", "p99", "max"}) {
      auto labels = run;
      labels["statistic"] = key;
      labels["part"] = part;
      lateness_.Add(labels).Set(late.at(key).get<double>() / 1e3);
    }
  }
  for (const auto& d : event.at("directions")) {
    const auto ratio = d.find("backlogged_rate_ratio");
    if (ratio == d.end()) continue;  // not measured (no shaping sampled yet)
    auto labels = run;
    labels["node"] = d.at("from").get<std::string>();
    labels["peer"] = d.at("to").get<std::string>();
    // NaN until the direction has been backlogged long enough to say: a gap on the panel.
    rate_ratio_.Add(labels).Set(ratio->is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                 : ratio->get<double>());
  }
}

}  // namespace testbed
