// The messages of a launch across hosts (docs/multihost.md#launch), between `testbed launch`
// on the controller's host and `testbed agents` on every other host, over the CURVE control
// channel (runs/host_agents.h). One struct per message, shared by both ends. Every parse
// checks every field and throws MalformedMessage, which the receiver drops and counts: the
// channel is authenticated, but a host is still another process, never trusted with an
// index, a size or a path.
//
//   controller -> host  {"cmd":"launch", ...}   LaunchCommand, the answer to a host's first beat
//                       {"cmd":"stop"}          stop the ranks (another failed, Ctrl-C, a limit)
//                       {"cmd":"beat"}          the answer to every later beat
//                       {"cmd":"quit"}          the job is over: exit
//   host -> controller  {"event":"beat","nodes":[...]}   as for a run (training/remote_hosts.h)
//                       {"event":"lines", ...}  HostLines: the ranks' output and metric lines
//                       {"event":"ranks_done", ...}     HostRanksDone: how they ended
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/health/health_report.h"
#include "controller/launch/job_runner.h"

namespace testbed {

class MalformedMessage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a host needs to make its ranks' plans from its own copy of the whole lab's plan
// (plan_launch): the same command, nodes and port give every rank the environment it has on
// one box. `ranks` are the ranks the controller expects the host to run; a host whose own
// plan gives others refuses (the hosts brought up different profiles).
struct LaunchCommand {
  std::string job;    // the job's name (default_job_name's alphabet)
  std::string stamp;  // the run directory's name under launches/, as on the controller's host
  std::vector<std::string> command;
  std::string nodes = "all";
  int master_port = 0;
  double max_seconds = 0;
  std::vector<int> ranks;
};

// One line of a rank's: output (the controller prints it "[node] LINE", as on one box) or a
// metric line (t_s: seconds since the host started its ranks).
struct RankLine {
  int rank = 0;
  bool metric = false;
  std::string text;
  double t_s = 0;
};

struct HostLines {
  std::vector<RankLine> lines;
  uint64_t dropped = 0;  // lines the host could not queue (the controller fell behind)
};

// How a host's ranks ended: JobRunner's outcome, keyed by the ranks' numbers in the whole job.
struct HostRanksDone {
  std::string status;    // JobOutcome's: "completed", "failed", "timed_out" or "interrupted"
  int failed_rank = -1;  // the job's rank number, when status is "failed"
  double wall_s = 0;
  std::vector<int> ranks;             // the ranks' numbers
  std::vector<RankOutcome> outcomes;  // in the same order
  std::string error;                  // the ranks could not be started: why (then no ranks)
  // What the host's own link directions sent during the job, by "from>to" (the kernel's
  // TBF counters there): the lab's WAN bytes are every host's.
  std::map<std::string, uint64_t> wan_bytes;
  // Their health while the ranks ran (health/health_wire.h), judged by the controller
  // with the lab's other links; none when the host could not watch them.
  std::optional<HealthReport> health;
};

nlohmann::json to_json(const LaunchCommand& c);
nlohmann::json to_json(const HostLines& l);
nlohmann::json to_json(const HostRanksDone& d);

// `world_size` bounds every rank number; a line is at most kMaxMetricsLine long.
LaunchCommand launch_command_from_json(const nlohmann::json& j);
HostLines host_lines_from_json(const nlohmann::json& j, int world_size);
HostRanksDone host_ranks_done_from_json(const nlohmann::json& j, int world_size);

// At most this many lines go in one "lines" message: a burst of output is sent as several
// frames, each under the channel's 64 MiB frame bound even at worst (64 lines of 64 KiB,
// each byte escaped to six: 24 MiB).
constexpr size_t kLinesPerMessage = 64;

}  // namespace testbed
