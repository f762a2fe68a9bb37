// The emulation-health half of the testbed's Prometheus metrics. While a run goes on, its
// HealthMonitor publishes the running report every few seconds as one event (the report's
// JSON with "event": "health" and "strategy"), and once more at the end; the exporter
// applies it here. Gauges, not counters: each event replaces the run's figures so far.
#pragma once

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <nlohmann/json.hpp>

#include <string>

namespace testbed {

class HealthMetrics {
 public:
  HealthMetrics(prometheus::Registry& registry, std::string lab);
  // Applies a "health" event; ignores others. Throws nlohmann::json::exception when a
  // health event is malformed.
  void apply(const nlohmann::json& event);

 private:
  std::string lab_;
  prometheus::Family<prometheus::Gauge>& healthy_;
  prometheus::Family<prometheus::Gauge>& lateness_;
  prometheus::Family<prometheus::Gauge>& cpu_saturated_;
  prometheus::Family<prometheus::Gauge>& nfqueue_dropped_;
  prometheus::Family<prometheus::Gauge>& rate_ratio_;
};

}  // namespace testbed
