#include "controller/launch/host_launch_messages.h"

#include <cmath>
#include <limits>
#include <set>

#include "controller/health/health_wire.h"
#include "controller/launch/job_metrics.h"

namespace testbed {
namespace {

// Bounds on what a launch message may hold, far above any real job's and far below what
// would hurt: Linux's own limit on one argument (MAX_ARG_STRLEN, 32 pages) and a generous
// count of them; a pid fits in 22 bits (PID_MAX_LIMIT); twelve lines of a stderr tail, as
// JobRunner keeps (plus room).
constexpr size_t kMaxArguments = 4096;
constexpr size_t kMaxArgument = 128 * 1024;
constexpr int64_t kMaxPid = int64_t{1} << 22;
constexpr size_t kMaxTail = 64;
constexpr size_t kMaxRestarts = 10000;
// A run directory's name: now_iso8601() and a suffix, or a job's name.
constexpr size_t kMaxName = 255;
// Link directions one host reports: a lab's links, both ways, far over any topology's.
constexpr size_t kMaxDirections = 65536;

[[noreturn]] void bad(const std::string& what) {
  throw MalformedMessage(what);
}

const nlohmann::json& field(const nlohmann::json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) bad(std::string("no '") + name + "'");
  return j.at(name);
}

std::string text(const nlohmann::json& j, const char* name, size_t max) {
  const auto& v = field(j, name);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > max)
    bad(std::string("'") + name + "' is not a string of at most " + std::to_string(max) + " bytes");
  return v.get<std::string>();
}

int64_t whole(const nlohmann::json& v, int64_t lo, int64_t hi, const char* name) {
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    bad(std::string("'") + name + "' is not a whole number from " + std::to_string(lo) + " to " +
        std::to_string(hi));
  return v.get<int64_t>();
}

double seconds(const nlohmann::json& v, const char* name) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    bad(std::string("'") + name + "' is not a finite number >= 0");
  return v.get<double>();
}

// A file name of the lab's own making: no path, nothing hidden, no control characters.
std::string name_of(const nlohmann::json& j, const char* name) {
  const std::string s = text(j, name, kMaxName);
  if (s.empty() || s[0] == '.' || s.find('/') != std::string::npos)
    bad(std::string("'") + name + "' is not a file name");
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      bad(std::string("'") + name + "' holds a control character");
  return s;
}

std::vector<int> rank_list(const nlohmann::json& v, int world_size, const char* name) {
  if (!v.is_array() || v.size() > static_cast<size_t>(world_size))
    bad(std::string("'") + name + "' is not a list of at most " + std::to_string(world_size) +
        " ranks");
  std::vector<int> out;
  std::set<int> seen;
  for (const auto& r : v) {
    out.push_back(static_cast<int>(whole(r, 0, world_size - 1, name)));
    if (!seen.insert(out.back()).second) bad(std::string("'") + name + "' names a rank twice");
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const LaunchCommand& c) {
  return {{"cmd", "launch"},
          {"job", c.job},
          {"stamp", c.stamp},
          {"command", c.command},
          {"nodes", c.nodes},
          {"master_port", c.master_port},
          {"max_seconds", c.max_seconds},
          {"ranks", c.ranks}};
}

nlohmann::json to_json(const HostLines& l) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& x : l.lines)
    lines.push_back({{"rank", x.rank}, {"metric", x.metric}, {"text", x.text}, {"t_s", x.t_s}});
  return {{"event", "lines"}, {"lines", lines}, {"dropped", l.dropped}};
}

nlohmann::json to_json(const HostRanksDone& d) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t i = 0; i < d.ranks.size() && i < d.outcomes.size(); ++i) {
    const RankOutcome& o = d.outcomes[i];
    ranks.push_back({{"rank", d.ranks[i]},
                     {"pid", o.pid},
                     {"status", o.status},
                     {"stopped", o.stopped},
                     {"ended_s", o.ended_s},
                     {"stderr_tail", o.stderr_tail},
                     {"earlier_pids", o.earlier_pids},
                     {"crashes", o.crashes},
                     {"crashed", o.crashed},
                     {"out_of_memory", o.out_of_memory}});
  }
  return {{"event", "ranks_done"},
          {"status", d.status},
          {"failed_rank", d.failed_rank},
          {"wall_s", d.wall_s},
          {"ranks", ranks},
          {"error", d.error},
          {"wan_bytes", d.wan_bytes},
          {"health", d.health ? health_to_wire(*d.health) : nlohmann::json(nullptr)}};
}

LaunchCommand launch_command_from_json(const nlohmann::json& j) {
  LaunchCommand c;
  if (text(j, "cmd", 16) != "launch") bad("not a launch command");
  c.job = name_of(j, "job");
  c.stamp = name_of(j, "stamp");
  const auto& command = field(j, "command");
  if (!command.is_array() || command.empty() || command.size() > kMaxArguments)
    bad("'command' is not a list of 1 to " + std::to_string(kMaxArguments) + " arguments");
  for (const auto& a : command) {
    if (!a.is_string() || a.get_ref<const std::string&>().size() > kMaxArgument)
      bad("an argument of 'command' is not a string of at most " + std::to_string(kMaxArgument) +
          " bytes");
    c.command.push_back(a.get<std::string>());
  }
  c.nodes = text(j, "nodes", kMaxArgument);
  c.master_port = static_cast<int>(whole(field(j, "master_port"), 1, 65535, "master_port"));
  c.max_seconds = seconds(field(j, "max_seconds"), "max_seconds");
  // A lab's nodes bound the ranks; the host checks them against its own plan.
  c.ranks = rank_list(field(j, "ranks"), static_cast<int>(kMaxArguments), "ranks");
  return c;
}

HostLines host_lines_from_json(const nlohmann::json& j, int world_size) {
  HostLines l;
  const auto& lines = field(j, "lines");
  if (!lines.is_array() || lines.size() > kLinesPerMessage)
    bad("'lines' is not a list of at most " + std::to_string(kLinesPerMessage) + " lines");
  for (const auto& x : lines) {
    RankLine r;
    r.rank = static_cast<int>(whole(field(x, "rank"), 0, world_size - 1, "rank"));
    const auto& metric = field(x, "metric");
    if (!metric.is_boolean()) bad("'metric' is not true or false");
    r.metric = metric.get<bool>();
    // LineBuffer cuts a line one byte past the bound.
    r.text = text(x, "text", kMaxMetricsLine + 1);
    r.t_s = seconds(field(x, "t_s"), "t_s");
    l.lines.push_back(std::move(r));
  }
  l.dropped = static_cast<uint64_t>(
      whole(field(j, "dropped"), 0, std::numeric_limits<int64_t>::max(), "dropped"));
  return l;
}

HostRanksDone host_ranks_done_from_json(const nlohmann::json& j, int world_size) {
  HostRanksDone d;
  static const std::set<std::string> kStatuses = {"completed", "failed", "timed_out",
                                                  "interrupted"};
  d.status = text(j, "status", 16);
  if (!kStatuses.count(d.status)) bad("'status' is not a job's status");
  d.failed_rank =
      static_cast<int>(whole(field(j, "failed_rank"), -1, world_size - 1, "failed_rank"));
  d.wall_s = seconds(field(j, "wall_s"), "wall_s");
  d.error = text(j, "error", kMaxMetricsLine);
  const auto& ranks = field(j, "ranks");
  if (!ranks.is_array() || ranks.size() > static_cast<size_t>(world_size))
    bad("'ranks' is not a list of at most " + std::to_string(world_size) + " ranks");
  std::set<int> seen;
  for (const auto& r : ranks) {
    d.ranks.push_back(static_cast<int>(whole(field(r, "rank"), 0, world_size - 1, "rank")));
    if (!seen.insert(d.ranks.back()).second) bad("'ranks' names a rank twice");
    RankOutcome o;
    o.pid = static_cast<pid_t>(whole(field(r, "pid"), -1, kMaxPid, "pid"));
    // An exit status, 128 + a signal, or -1 for one never started.
    o.status = static_cast<int>(whole(field(r, "status"), -1, 255, "status"));
    for (const char* flag : {"stopped", "crashed", "out_of_memory"})
      if (!field(r, flag).is_boolean()) bad(std::string("'") + flag + "' is not true or false");
    o.stopped = r["stopped"].get<bool>();
    o.crashed = r["crashed"].get<bool>();
    o.out_of_memory = r["out_of_memory"].get<bool>();
    o.ended_s = seconds(field(r, "ended_s"), "ended_s");
    const auto& tail = field(r, "stderr_tail");
    if (!tail.is_array() || tail.size() > kMaxTail) bad("'stderr_tail' is too long");
    for (const auto& line : tail) {
      if (!line.is_string() || line.get_ref<const std::string&>().size() > kMaxMetricsLine)
        bad("a line of 'stderr_tail' is not a string of at most a line's length");
      o.stderr_tail.push_back(line.get<std::string>());
    }
    const auto& earlier = field(r, "earlier_pids");
    if (!earlier.is_array() || earlier.size() > kMaxRestarts) bad("'earlier_pids' is too long");
    for (const auto& p : earlier)
      o.earlier_pids.push_back(static_cast<pid_t>(whole(p, 1, kMaxPid, "earlier_pids")));
    o.crashes = static_cast<int>(whole(field(r, "crashes"), 0, kMaxRestarts, "crashes"));
    d.outcomes.push_back(std::move(o));
  }
  if (d.failed_rank >= 0 && !seen.count(d.failed_rank)) bad("'failed_rank' is not one of 'ranks'");
  const auto& wan = field(j, "wan_bytes");
  if (!wan.is_object() || wan.size() > kMaxDirections)
    bad("'wan_bytes' is not a map of directions");
  for (const auto& [direction, bytes] : wan.items()) {
    if (direction.empty() || direction.size() > 2 * kMaxName + 1 ||
        direction.find('>') == std::string::npos)
      bad("'wan_bytes' has a key that is no direction");
    if (!bytes.is_number_unsigned()) bad("'wan_bytes' of " + direction + " is not a count");
    d.wan_bytes[direction] = bytes.get<uint64_t>();
  }
  const auto& health = field(j, "health");
  if (!health.is_null()) {
    try {
      d.health = health_from_wire(health, kMaxDirections);
    } catch (const std::invalid_argument& e) {
      bad(e.what());
    }
  }
  return d;
}

}  // namespace testbed
