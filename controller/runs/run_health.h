// Emulation health around one `testbed train` run: the monitor starts before the agents
// set up (probes are part of the run) and its report joins the run's summary as
// "health", goes to the exporter, and, when a threshold was crossed, to stderr as one line.
#pragma once

#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <map>
#include <memory>
#include <string>

#include "controller/health/health_monitor.h"
#include "controller/observe/metrics_sink.h"
#include "controller/scenario/scenario.h"

namespace testbed {

std::unique_ptr<HealthMonitor> start_run_health(zmq::context_t& context, const std::string& lab_dir,
                                                const Plan& plan, const std::string& strategy);

// Stops the monitor; adds "health" to `summary`, publishes it, warns when unhealthy. Over
// hosts, `elsewhere` holds the other hosts' reports of their own links (by host;
// training/host_figures.h): "health" is then the whole lab's, judged as one box's is
// (health_wire.h), with "by_host" saying what each host's links alone showed.
void finish_run_health(HealthMonitor& monitor, nlohmann::json& summary, const std::string& strategy,
                       MetricsSink& metrics, const std::string& this_host = "",
                       const std::map<std::string, HealthReport>& elsewhere = {});

// A scenario's view of a strategy's runs: the worst of each health figure over its
// repetitions (release_lateness_p99_ms, emulator_lateness_p99_ms, cpu_saturated_share,
// min_rate_ratio) and every problem any of them had. Runs without a health object (older results)
// add nothing.
void add_health_figures(const std::vector<nlohmann::json>& summaries, StrategyOutcome& outcome);

// "emulation unhealthy: ..." for a run's summary, or "" when it was healthy.
std::string health_warning(const nlohmann::json& summary);

}  // namespace testbed
