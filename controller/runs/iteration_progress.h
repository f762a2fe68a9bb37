// A finished iteration, as `testbed train --json` reports it on stderr (one JSON line each)
// and as `testbed regress` and `testbed run` read their child's progress. One struct for
// both ends, so the reader never parses the human-readable line (which may change freely).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace testbed {

struct IterationProgress {
  uint64_t iteration = 0;   // iterations done, from 1
  uint64_t iterations = 0;  // of the run's
  std::string strategy;
  double seconds = 0;  // this iteration's time (the parameter server: its workers' mean)
  std::optional<double> samples_per_s;     // tree strategies
  std::optional<uint64_t> policy_version;  // tree strategies: NetStorm's policy in force
  std::optional<double> aux_share;         // NetStorm: the share of chunks on auxiliary paths
  std::optional<uint64_t> fastest_clock;   // parameter server: the fastest worker's clock
  std::optional<double> loss;              // parameter server: the held-out loss so far
  bool operator==(const IterationProgress&) const = default;
};

// In the fields' order, "event" first: a line starts {"event":"iteration", which a reader
// of the whole stream (a summary's, or a shell's grep) can tell apart by its prefix.
nlohmann::ordered_json to_json(const IterationProgress& p);
// One line of a child's stderr: the progress it carries, or nullopt for any other line
// (text, another event, or malformed: the child is our own, but its stderr is a stream).
std::optional<IterationProgress> iteration_progress_from_line(const std::string& line);
// `{"event":"iteration",...}` and a newline, flushed.
void write_json_line(std::ostream& out, const IterationProgress& p);

}  // namespace testbed
