// What one `testbed launch` reports: the results file (runs/*.json, beside the built-in
// strategies' runs, so `testbed report` and scenarios read it alike) and the lines that
// name a failure. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "controller/launch/job_runner.h"
#include "controller/launch/launch_plan.h"

namespace testbed {

// `metrics` is JobMetrics::summary(); `wan_bytes` the bytes each link direction
// ("from>to") sent during the job, from the kernel's counters.
nlohmann::json launch_summary(const LaunchRequest& request, const std::vector<RankPlan>& ranks,
                              const JobOutcome& outcome, nlohmann::json metrics,
                              const std::map<std::string, uint64_t>& wan_bytes);

// For people, on stderr: which node failed, how, its last stderr lines, and what happened
// to the others; or why the job was stopped. Empty for a completed job.
std::vector<std::string> failure_lines(const std::vector<RankPlan>& ranks,
                                       const JobOutcome& outcome, double max_seconds);

// "signal 9 (Killed)" or "status 3".
std::string describe_status(int status);

}  // namespace testbed
