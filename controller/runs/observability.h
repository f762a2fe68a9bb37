// What `up` starts so a lab can be watched: the exporter (always; it is cheap), the lab's
// own Prometheus server (--prometheus=on, the default), and grafana-server with the
// bundled dashboards (--grafana, where it is installed). Every process is recorded in the
// lab's state before anything waits on it, so a failure rolls back like any other.
#pragma once

#include <string>
#include <vector>

#include "controller/lab/lab_state.h"

namespace testbed {

enum class PrometheusMode { kOn, kOff, kExisting };

struct ObservabilityOptions {
  PrometheusMode prometheus = PrometheusMode::kOn;
  bool grafana = false;
  // Where the exporter listens: loopback on a free port unless `up --metrics` says so. In a
  // pod, 0.0.0.0 and a fixed port let the cluster's Prometheus scrape it (docs/multihost.md).
  bool metrics_on_all_addresses = false;
  int metrics_port = 0;
};

// `up --metrics 127.0.0.1:PORT|0.0.0.0:PORT`; throws UsageError otherwise.
void parse_metrics_option(const std::string& value, ObservabilityOptions& options);

// Throws UsageError for anything but on, off or existing.
PrometheusMode parse_prometheus_option(const std::string& value);

// Starts them; returns lines for the user (URLs, what is missing and what to do about it).
std::vector<std::string> start_observability(const LabStore& store, LabState& state,
                                             const ObservabilityOptions& options);

}  // namespace testbed
