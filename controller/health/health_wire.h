// A run's health as one host sends it to another (a lab spread over hosts: each host
// watches the links its own nodes send on, docs/multihost.md#every-hosts-links), and the
// whole lab's report made from every host's. The raw figures cross, histograms included,
// so that the controller judges every host's links by the same rules as one box's.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "controller/health/health_report.h"

namespace testbed {

nlohmann::json health_to_wire(const HealthReport& report);

// Another process's report: throws std::invalid_argument naming the field when it is not an
// object of at most `max_directions` directions with bounded names, finite non-negative
// figures and histograms that parse. The thresholds are never taken from the wire: the
// reader judges by its own.
HealthReport health_from_wire(const nlohmann::json& j, size_t max_directions);

// The lab's report: this host's (`mine`, watched on host `my_host`) and the others', by
// host. Every direction once: one between hosts is shaped on its sender's host and delayed
// on its receiver's, so its rate comes from the one and its lateness from the other. The
// run's duration the longest; the CPU figures the worst host's, named in the report
// (HealthReport::cpu_host), since each host's CPUs emulate only its own links.
HealthReport merge_host_health(HealthReport mine, const std::string& my_host,
                               const std::map<std::string, HealthReport>& others);

// Per host, what its report alone says: {"HOST": {"directions", "healthy", "problems",
// "cpu_saturated_share"}}, beside the merged report in a run's summary.
nlohmann::json health_by_host(const HealthReport& mine, const std::string& my_host,
                              const std::map<std::string, HealthReport>& others);

}  // namespace testbed
