#include "controller/launch/host_ranks.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "controller/launch/lab_rank_faults.h"
#include "controller/launch/rank_records.h"
#include "controller/launch/runner_thread.h"
#include "netns/process_launcher.h"

namespace testbed {
namespace {

// Lines waiting for the channel, bounded so that a job printing faster than the network
// carries cannot grow this process: past it they are counted and dropped (the files keep
// them all). A hundred thousand lines is minutes of a chatty job's output.
constexpr size_t kQueuedLines = 100000;
// How often queued lines go out and the channel is read: a rank's output reaches the
// controller's terminal within a tenth of a second.
constexpr auto kTick = std::chrono::milliseconds(100);
// How long the controller's "quit" is waited for after the ranks' outcome was sent: it
// answers at once; a lost one is not waited for longer than a loaded machine needs.
constexpr auto kQuitWait = std::chrono::seconds(10);

class LineQueue {
 public:
  void push(RankLine line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.size() >= kQueuedLines) {
      ++dropped_;
      return;
    }
    lines_.push_back(std::move(line));
  }
  // At most one message's worth; empty when nothing waits.
  HostLines take() {
    std::lock_guard<std::mutex> lock(mutex_);
    HostLines out;
    while (!lines_.empty() && out.lines.size() < kLinesPerMessage) {
      out.lines.push_back(std::move(lines_.front()));
      lines_.pop_front();
    }
    out.dropped = dropped_;
    return out;
  }

 private:
  std::mutex mutex_;
  std::deque<RankLine> lines_;
  uint64_t dropped_ = 0;
};

std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string s;
  for (const int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s.empty() ? "none" : s;
}

// This host's ranks, planned from its own copy of the lab's plan; throws LaunchInputError
// (or std::system_error for a program not found) naming what does not match the controller's.
std::vector<RankPlan> plan_here(const LabStore& store, const HostRanksSetting& setting,
                                const LaunchCommand& command) {
  LaunchRequest request;
  request.lab = setting.lab;
  request.nodes = command.nodes;
  request.command = command.command;
  request.job = command.job;
  request.run_dir = store.dir(setting.lab) + "/launches/" + command.stamp;
  request.master_port = command.master_port;
  std::vector<RankPlan> mine;
  std::vector<int> numbers;
  for (auto& r : plan_launch(setting.whole_plan, request)) {
    if (!setting.here.count(r.ns)) continue;
    numbers.push_back(r.rank);
    mine.push_back(std::move(r));
  }
  if (rank_list(numbers) != rank_list(command.ranks))
    throw LaunchInputError("this host's plan gives it ranks " + rank_list(numbers) +
                           ", the controller's " + rank_list(command.ranks) +
                           ": bring every host's slice up from the same profile and placement");
  if (mine.empty()) throw LaunchInputError("no rank of the job is on this host");
  find_program(mine.front().argv.front());
  std::filesystem::create_directories(request.run_dir);
  return mine;
}

}  // namespace

int run_host_ranks(LabStore& store, const HostRanksSetting& setting, const LaunchCommand& command,
                   ControllerChannel& channel, std::ostream& progress,
                   const std::atomic<int>& signal) {
  HostRanksDone done;
  std::vector<RankPlan> mine;
  try {
    mine = plan_here(store, setting, command);
  } catch (const LaunchInputError& e) {
    done.error = e.what();
  } catch (const std::system_error& e) {
    done.error = std::string(e.what()) + ": no such program";
  }
  if (!done.error.empty()) {
    progress << "launch " << command.job << ": " << done.error << "; nothing was started\n";
    done.status = "failed";
    channel.send(to_json(done));
    return 1;
  }
  progress << "launch " << command.job << ": ranks " << rank_list(command.ranks) << " on "
           << mine.size() << " node(s) of this host\n"
           << std::flush;

  LineQueue queue;
  JobRunOptions options;
  options.max_seconds = command.max_seconds;
  options.supervisor = setting.supervisor;
  LabRankFaults faults(store.dir(setting.lab));  // as on the controller's host
  options.faults = &faults;
  options.on_output = [&](const RankPlan& rank, std::string_view line) {
    queue.push({rank.rank, false, std::string(line), 0});
  };
  JobRunner runner(
      mine, options,
      [&](const RankPlan& rank, pid_t pid) { record_rank(store, setting.lab, rank, pid); },
      [&](size_t i, std::string_view line, double t_s) {
        queue.push({mine.at(i).rank, true, std::string(line), t_s});
      });
  const auto send_lines = [&] {
    for (HostLines l = queue.take(); !l.lines.empty(); l = queue.take()) channel.send(to_json(l));
  };
  std::string why_stopped;
  JobOutcome outcome;
  const auto before =
      setting.wan_counters ? setting.wan_counters() : std::map<std::string, uint64_t>{};
  const auto stop_health = setting.watch_health ? setting.watch_health() : nullptr;
  {
    RunnerThread thread(runner);
    while (!thread.done()) {
      send_lines();
      const nlohmann::json message = channel.receive(kTick);
      if (message.is_object() && message.value("cmd", "") == "stop") {
        why_stopped = "stopped by the controller";
        thread.stop(SIGTERM);
      }
      if (signal) {
        why_stopped = "ended by signal " + std::to_string(signal.load());
        thread.stop(signal.load());
      }
      if (const std::string lost = channel.lost(); !lost.empty() && why_stopped.empty()) {
        why_stopped = lost;
        thread.stop(SIGTERM);
      }
    }
    try {
      outcome = thread.take();
    } catch (const std::system_error& e) {
      done.error = std::string("a rank could not be started: ") + e.what();
    }
  }
  forget_ranks(store, setting.lab, outcome);
  if (setting.wan_counters) {
    const auto after = setting.wan_counters();
    for (const auto& [direction, bytes] : after) {
      const auto was = before.find(direction);
      // A counter that went back (its class rebuilt) counts from zero, as on one box.
      done.wan_bytes[direction] =
          was == before.end() || was->second > bytes ? bytes : bytes - was->second;
    }
  }
  if (stop_health) done.health = stop_health();
  send_lines();
  done.status = done.error.empty() ? outcome.status : "failed";
  done.wall_s = outcome.wall_s;
  if (outcome.failed_rank >= 0) done.failed_rank = mine.at(outcome.failed_rank).rank;
  for (size_t i = 0; i < outcome.ranks.size(); ++i) {
    done.ranks.push_back(mine.at(i).rank);
    done.outcomes.push_back(outcome.ranks[i]);
  }
  channel.send(to_json(done));
  progress << "launch " << command.job << ": " << done.status
           << (why_stopped.empty() ? "" : " (" + why_stopped + ")")
           << (done.error.empty() ? "" : ": " + done.error) << "\n"
           << std::flush;
  // The controller answers the outcome with "quit"; the ranks are over whatever it says.
  const auto deadline = std::chrono::steady_clock::now() + kQuitWait;
  while (channel.lost().empty() && !signal && std::chrono::steady_clock::now() < deadline) {
    const nlohmann::json message = channel.receive(kTick);
    if (message.is_object() && message.value("cmd", "") == "quit") break;
  }
  return done.status == "completed" ? 0 : 1;
}

}  // namespace testbed
