// Bandwidth (and delay, loss) over time: parsing a direction's `schedule`, loading trace
// files, and expanding a schedule into the changes that fall in a time window.
//
// Expansion is a pure function of (schedule, stream, window): a random schedule's k-th
// draw depends only on its seed, the direction's stream id and k, so the same seed gives
// the same sequence however the timeline walks through it, and each direction of each
// link draws independently.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

#include "controller/topology/diagnostics.h"
#include "controller/topology/topology.h"

namespace testbed {

// SplitMix64: a tiny, well-mixed hash, so that draw k of a random stream needs no
// generator state (random rates, flaps, stragglers: each draw a function of its index).
uint64_t splitmix64(uint64_t x);

using YamlErrorSink = std::function<void(const YAML::Node&, const std::string&)>;

// Parses a `schedule:` mapping. Errors go to `yaml_error` (positioned in the profile) or,
// for trace files, to `trace_errors` (positioned in the trace). `profile_dir` resolves
// relative trace paths; `default_seed` is the profile's seed.
std::optional<Schedule> parse_schedule(const YAML::Node& node, const std::string& profile_dir,
                                       uint64_t default_seed, const YamlErrorSink& yaml_error,
                                       std::vector<Diagnostic>& trace_errors);

// "time,rate" lines: time in seconds or with a unit (10s, 500ms), rate in Mbit/s or with a
// unit (20mbit). A header line and '#' comments are skipped.
std::vector<ScheduleChange> load_csv_trace(const std::string& path,
                                           std::vector<Diagnostic>& errors);

// Mahimahi's packet-delivery trace: one line per 1500-byte delivery opportunity, its time
// in milliseconds; the trace repeats with the period of its last timestamp. Counted into
// bins of `bin_us` to give a rate per bin.
std::vector<ScheduleChange> load_mahimahi_trace(const std::string& path, int64_t bin_us,
                                                int64_t& period_us,
                                                std::vector<Diagnostic>& errors);

// A direction's stream id: mixes into random draws so directions are independent.
uint64_t direction_stream(size_t link_index, bool b2a);

// The changes with at_us in [from_us, to_us), in time order.
std::vector<ScheduleChange> schedule_changes(const Schedule& s, uint64_t stream, int64_t from_us,
                                             int64_t to_us);

// The rate a schedule sets at time 0, if any (it then replaces the static bandwidth).
std::optional<Rate> initial_rate(const Schedule& s, uint64_t stream);

}  // namespace testbed

#include <nlohmann/json.hpp>

namespace testbed {

nlohmann::json schedule_to_json(const Schedule& s);
Schedule schedule_from_json(const nlohmann::json& j);
// A list of changes (a schedule's, or a direction's faults) and back.
nlohmann::json changes_to_json(const std::vector<ScheduleChange>& changes);
std::vector<ScheduleChange> changes_from_json(const nlohmann::json& j);
// The highest rate a schedule can set (for buffer sizing); 0 when it sets none.
uint64_t schedule_max_rate(const Schedule& s);
// Whether a schedule ever changes delay or loss (the direction then needs a delay hook).
bool schedule_impairs(const Schedule& s);

}  // namespace testbed
