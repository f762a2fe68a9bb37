#include "health_metrics.h"

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
                          "during the run (quantile 0.5, 0.99, or 1 for the maximum).")
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
  const auto& late = event.at("release_lateness_ms");
  for (const auto& [quantile, key] :
       {std::pair{"0.5", "p50"}, std::pair{"0.99", "p99"}, std::pair{"1", "max"}}) {
    auto labels = run;
    labels["quantile"] = quantile;
    lateness_.Add(labels).Set(late.at(key).get<double>() / 1e3);
  }
  for (const auto& d : event.at("directions")) {
    const auto ratio = d.find("backlogged_rate_ratio");
    if (ratio == d.end() || ratio->is_null()) continue;
    auto labels = run;
    labels["node"] = d.at("from").get<std::string>();
    labels["peer"] = d.at("to").get<std::string>();
    rate_ratio_.Add(labels).Set(ratio->get<double>());
  }
}

}  // namespace testbed
