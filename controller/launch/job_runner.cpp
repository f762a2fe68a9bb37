#include "controller/launch/job_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <optional>
#include <ostream>
#include <system_error>

#include "controller/launch/job_metrics.h"
#include "controller/launch/rank_output.h"
#include "netns/crash_point.h"
#include "netns/named_netns.h"
#include "netns/node_identity.h"
#include "netns/process_exit.h"
#include "netns/process_launcher.h"
#include "netns/wait_set.h"

extern char** environ;

namespace testbed {
namespace {

using Clock = std::chrono::steady_clock;

// How often the loop wakes when nothing arrives: the metrics files are polled at this
// rate, so a file line is timed to within it (iterations of interest last seconds).
constexpr int kPollMs = 50;
// A failed rank is named with this many of its last stderr lines.
constexpr size_t kTailLines = 12;
// After the last rank has ended, how long its pipes may stay open (a grandchild that left
// its group and kept them) before the runner stops reading them.
constexpr double kDrainAfterExitS = 1.0;
// How often the nodes' leave and join requests are read (a file per read): a quarter of a
// second is what an elastic training run polls them at too (runs/diloco).
constexpr double kMembershipPollS = 0.25;

struct Stream {
  int fd = -1;  // read end of the pipe; -1 once closed
  std::ofstream log;
  LineBuffer lines;
};

struct Rank {
  const RankPlan* plan;
  Stream out, err;
  int metrics_fd = -1;
  LineBuffer metrics;
  RankOutcome outcome;
  bool running = false;
  std::deque<std::string> tail;
  // Crashed by a fault and waiting for a restart: the node's restart count at the crash.
  std::optional<int> crashed_at_restarts;
  uint64_t oom_kills_at_start = 0;                 // its node's, when it (last) started
  RankMembership membership;                       // its node's leaves and joins
  int runs = 0;                                    // starts so far
  double started_s = 0;                            // its run's start (since the launch)
  std::optional<Clock::time_point> drain_kill_at;  // told to leave: SIGKILL if still running
};

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

}  // namespace

void signal_job_group(pid_t leader, int sig) {
  if (leader > 0) kill(-leader, sig);
}

JobRunner::JobRunner(std::vector<RankPlan> ranks, JobRunOptions options, OnStart on_start,
                     OnMetricLine on_metric_line)
    : ranks_(std::move(ranks)),
      options_(options),
      on_start_(std::move(on_start)),
      on_metric_line_(std::move(on_metric_line)) {}

JobOutcome JobRunner::run(const std::atomic<int>& interrupt) {
  std::vector<Rank> ranks(ranks_.size());
  const auto start = Clock::now();
  const std::vector<std::string> base_env = current_environment();

  // The ranks' output and their ends in one wait (netns/wait_set.h), for the whole run: a
  // rank's pidfd and pipes are watched from its start until it is reaped and they are closed.
  WaitSet waits;
  const auto close_stream = [&](Stream& stream) {
    if (stream.fd < 0) return;
    waits.forget_readable(stream.fd);  // before its number can be another descriptor's
    close(stream.fd);
    stream.fd = -1;
  };

  const auto stop_all = [&](int sig) {
    for (auto& r : ranks)
      if (r.running) signal_job_group(r.outcome.pid, sig);
  };

  const auto echo = [&](const Rank& r, std::string_view line) {
    if (options_.on_output) {
      options_.on_output(*r.plan, line);
    } else if (options_.echo) {
      *options_.echo << "[" << r.plan->node << "] " << line << "\n" << std::flush;
    }
  };
  std::string outside_at_launch;  // TESTBED_RANKS_OUTSIDE
  // Starts rank i (again, after a restart or a join: its files are appended to, and its
  // metrics file, still followed, is not truncated). Throws std::system_error when it cannot.
  const auto start_rank = [&](size_t i, bool joined) {
    Rank& r = ranks[i];
    const bool again = r.runs > 0;
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC | O_NONBLOCK) != 0) throw_errno("pipe2");
    if (pipe2(err, O_CLOEXEC | O_NONBLOCK) != 0) {
      close(out[0]);
      close(out[1]);
      throw_errno("pipe2");
    }
    FileDescriptor out_w(out[1]), err_w(err[1]);
    // The child's ends must block: a job does not expect EAGAIN on its own stdout.
    fcntl(out_w.get(), F_SETFL, 0);
    fcntl(err_w.get(), F_SETFL, 0);
    r.out.fd = out[0];
    r.err.fd = err[0];
    const auto mode = again ? std::ios::app : std::ios::trunc;
    r.out.log.open(r.plan->stdout_path, std::ios::out | mode);
    r.err.log.open(r.plan->stderr_path, std::ios::out | mode);
    if (!again) {
      // Created empty, so the job may open it for appending and we may follow it at once.
      std::ofstream(r.plan->metrics_path, std::ios::app).flush();
      r.metrics_fd = open(r.plan->metrics_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
    FileDescriptor ns = open_netns(r.plan->ns);
    const NodeIdentity identity = open_node_identity(r.plan->ns);
    FileDescriptor null(open("/dev/null", O_RDONLY | O_CLOEXEC));
    LaunchSpec spec;
    spec.argv = options_.supervisor;
    spec.argv.insert(spec.argv.end(), r.plan->argv.begin(), r.plan->argv.end());
    spec.ns_fd = ns.get();
    spec.stdin_fd = null.get();
    spec.stdout_fd = out_w.get();
    spec.stderr_fd = err_w.get();
    spec.new_session = true;  // a process group of its own, away from the terminal's
    spec.uts_fd = identity.uts.get();
    spec.hosts_file = identity.hosts_file;
    spec.cgroup_fds = identity.cgroup_fds();
    spec.parent_death_signal = SIGKILL;
    spec.env = merge_environment(base_env, r.plan->env);
    spec.env->push_back("TESTBED_RANK_RUN=" + std::to_string(r.runs + 1));
    spec.env->push_back(std::string("TESTBED_RANK_JOINED=") + (joined ? "1" : "0"));
    spec.env->push_back("TESTBED_RANKS_OUTSIDE=" + outside_at_launch);
    if (options_.oom_kills) r.oom_kills_at_start = options_.oom_kills(r.plan->ns);
    r.outcome.pid = launch(spec);
    r.running = true;
    ++r.runs;
    r.started_s = since(start);
    waits.watch_end(r.outcome.pid);  // our child, not reaped: still the rank
    waits.watch_readable(r.out.fd);
    waits.watch_readable(r.err.fd);
    // Killed here, the rank is unrecorded: PR_SET_PDEATHSIG ends it with this process.
    crash_point("launch:rank started, not recorded");
    on_start_(*r.plan, r.outcome.pid);
  };

  // Nodes whose latest request before the launch is a leave start outside, until a join.
  for (size_t i = 0; i < ranks_.size(); ++i) {
    ranks[i].plan = &ranks_[i];
    if (options_.faults &&
        ranks[i].membership.starts_outside(options_.faults->membership(ranks_[i].node)))
      outside_at_launch += (outside_at_launch.empty() ? "" : ",") + std::to_string(i);
  }
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks[i].membership.outside()) {
      ranks[i].outcome.outside = true;
      echo(ranks[i], "outside at the launch (its node left): it starts when the node joins");
      continue;
    }
    try {
      start_rank(i, false);
    } catch (...) {
      stop_all(SIGKILL);
      for (auto& s : ranks) {
        if (s.running) reap(s.outcome.pid);
        for (int fd : {s.out.fd, s.err.fd, s.metrics_fd})
          if (fd >= 0) close(fd);
      }
      throw;
    }
  }
  if (std::none_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; }))
    throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                            "every node of the job is outside (its latest request is a leave): "
                            "join one first");

  JobOutcome job;
  job.status = "completed";
  bool stopping = false;
  Clock::time_point kill_at{};
  std::optional<Clock::time_point> all_ended;
  const auto begin_stop = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    if (job.status == "completed") job.status = why;
    stop_all(SIGTERM);
    kill_at = Clock::now() +
              std::chrono::milliseconds(static_cast<int64_t>(options_.stop_grace_s * 1000));
  };

  const auto read_streams = [&](size_t i) {
    Rank& r = ranks[i];
    // What stdout has now is read before the file and handled after it: whatever a job
    // printed, it had finished writing to the file before, so a job that writes a metric
    // line and then prints one keeps its order, however the reads fall.
    std::string out_data;
    const bool out_open =
        r.out.fd >= 0 && drain(r.out.fd, [&](std::string_view data) { out_data.append(data); });
    if (r.metrics_fd >= 0) {
      drain(r.metrics_fd, [&](std::string_view data) {
        r.metrics.feed(data, [&](std::string_view line) {
          if (!line.empty()) on_metric_line_(i, line, since(start));
        });
      });
    }
    if (r.out.fd >= 0) {
      // Flushed as it comes: a rank's log is for following while the job runs.
      r.out.log.write(out_data.data(), static_cast<std::streamsize>(out_data.size()));
      r.out.log.flush();
      r.out.lines.feed(out_data, [&](std::string_view line) {
        if (line.substr(0, kMetricsPrefix.size()) == kMetricsPrefix) {
          on_metric_line_(i, line.substr(kMetricsPrefix.size()), since(start));
        } else {
          echo(r, line);
        }
      });
      if (!out_open) {
        r.out.lines.flush([&](std::string_view line) { echo(r, line); });
        r.out.log.flush();
        close_stream(r.out);
      }
    }
    if (r.err.fd >= 0) {
      // Shown, and its last lines kept to name a failure by (a line's head names the error).
      const auto keep = [&](std::string_view line) {
        echo(r, line);
        r.tail.emplace_back(line.substr(0, 500));
        if (r.tail.size() > kTailLines) r.tail.pop_front();
      };
      const bool open = drain(r.err.fd, [&](std::string_view data) {
        r.err.log.write(data.data(), static_cast<std::streamsize>(data.size()));
        r.err.log.flush();
        r.err.lines.feed(data, keep);
      });
      if (!open) {
        r.err.lines.flush(keep);
        r.err.log.flush();
        close_stream(r.err);
      }
    }
  };

  // Runs rank i again (a restart after its crash, or its node's join), its last run's
  // output flushed first.
  const auto run_again = [&](size_t i, bool joined, const char* why) {
    Rank& r = ranks[i];
    if (r.runs > 0) r.outcome.earlier_pids.push_back(r.outcome.pid);
    read_streams(i);  // what the last run left in its pipes, before new ones
    for (Stream* stream : {&r.out, &r.err}) {
      stream->lines.flush([&](std::string_view line) { echo(r, line); });
      close_stream(*stream);
      stream->log.close();
    }
    echo(r, why);
    r.outcome.outside = false;
    try {
      start_rank(i, joined);
    } catch (const std::exception& e) {
      echo(r, std::string("could not be run again: ") + e.what());
      r.outcome.status = 127;  // as a shell's "cannot run"
      job.failed_rank = static_cast<int>(i);
      begin_stop("failed");
    }
  };
  // A rank completed (not by a leave): the job is ending, and a join is too late for it.
  bool ending = false;
  auto next_membership_poll = Clock::now();

  for (;;) {
    // A rank that ends or writes wakes the loop at once; kPollMs bounds the wait for the
    // metrics files, `interrupt` and the time limit.
    waits.wait(std::chrono::milliseconds(kPollMs));
    for (size_t i = 0; i < ranks.size(); ++i) read_streams(i);

    for (auto& r : ranks) {
      if (!r.running) continue;
      siginfo_t info{};
      // WNOWAIT: seen, not reaped, so the group id cannot be taken by another process
      // before the rest of the group is killed.
      if (waitid(P_PID, static_cast<id_t>(r.outcome.pid), &info, WEXITED | WNOHANG | WNOWAIT) !=
              0 ||
          info.si_pid == 0)
        continue;
      signal_job_group(r.outcome.pid, SIGKILL);
      r.running = false;
      waits.forget_end(r.outcome.pid);
      r.outcome.status = reap(r.outcome.pid);
      r.outcome.ended_s = since(start);
      r.outcome.running_s += r.outcome.ended_s - r.started_s;
      r.outcome.stopped = stopping;
      // Its leave: drained and gone (whatever its status), or back at once for a join.
      bool start_again = false;
      if (r.membership.ended(ending || stopping, start_again)) {
        r.drain_kill_at.reset();
        echo(r, "left (its node's leave)");
        r.outcome.outside = !start_again;
        if (start_again) run_again(static_cast<size_t>(&r - ranks.data()), true, "joined");
        continue;
      }
      if (r.outcome.status == 0) ending = true;
      if (r.outcome.status == 0 || stopping) continue;
      // Killed by its node's crash (recorded before the signal): a fault, not a failure.
      if (options_.faults && r.outcome.status == 128 + SIGKILL) {
        if (const auto at = options_.faults->crash_of(r.plan->node, r.outcome.pid)) {
          r.crashed_at_restarts = *at;
          r.outcome.crashed = true;
          ++r.outcome.crashes;
          echo(r, "crashed by a fault of the node; waiting for a restart");
          continue;
        }
      }
      // The OOM killer ends the rank's program, under its supervisor, which exits 128 + 9.
      if (options_.oom_kills && r.outcome.status == 128 + SIGKILL &&
          options_.oom_kills(r.plan->ns) > r.oom_kills_at_start) {
        r.outcome.out_of_memory = true;
        echo(r, "killed by its node's memory limit (the kernel's OOM killer)");
      }
      job.failed_rank = static_cast<int>(&r - ranks.data());
      begin_stop("failed");
    }
    // Ranks whose node was restarted since their crash run again.
    for (size_t i = 0; i < ranks.size() && !stopping; ++i) {
      Rank& r = ranks[i];
      if (!r.crashed_at_restarts ||
          options_.faults->restarts(r.plan->node) <= *r.crashed_at_restarts)
        continue;
      r.crashed_at_restarts.reset();
      r.outcome.crashed = false;
      run_again(i, false, "restarted");
    }
    // The nodes' leave and join requests: a leave drains its rank, a join runs it again.
    if (options_.faults && !stopping && Clock::now() >= next_membership_poll) {
      next_membership_poll =
          Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(kMembershipPollS * 1000));
      for (size_t i = 0; i < ranks.size() && !stopping; ++i) {
        Rank& r = ranks[i];
        switch (
            r.membership.on_request(options_.faults->membership(r.plan->node), r.running, ending)) {
          case RankMembership::Action::kDrain:
            signal_job_group(r.outcome.pid, SIGTERM);
            r.drain_kill_at =
                Clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(options_.leave_grace_s * 1000));
            echo(r, "leaving: told to drain (SIGTERM)");
            break;
          case RankMembership::Action::kStart:
            run_again(i, true, "joined");
            break;
          case RankMembership::Action::kNone:
            break;
        }
      }
    }
    for (auto& r : ranks)
      if (r.running && r.membership.draining() && r.drain_kill_at &&
          Clock::now() >= *r.drain_kill_at) {
        echo(r, "still draining after the leave's grace: killed");
        signal_job_group(r.outcome.pid, SIGKILL);
        r.drain_kill_at.reset();
      }
    const bool any_running =
        std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; });
    if (!any_running) {
      // A crashed rank that nothing restarted before the rest ended fails the job.
      for (size_t i = 0; i < ranks.size() && job.failed_rank < 0; ++i)
        if (ranks[i].outcome.crashed && !stopping) {
          job.failed_rank = static_cast<int>(i);
          job.status = "failed";
        }
      if (!all_ended) all_ended = Clock::now();
      const bool pipes_open = std::any_of(
          ranks.begin(), ranks.end(), [](const Rank& r) { return r.out.fd >= 0 || r.err.fd >= 0; });
      if (!pipes_open ||
          std::chrono::duration<double>(Clock::now() - *all_ended).count() > kDrainAfterExitS)
        break;
      continue;
    }
    if (interrupt != 0) begin_stop("interrupted");
    if (options_.max_seconds > 0 && since(start) > options_.max_seconds) begin_stop("timed_out");
    if (stopping && Clock::now() >= kill_at) stop_all(SIGKILL);
  }

  // Whatever the files still hold, then the streams' last partial lines.
  for (size_t i = 0; i < ranks.size(); ++i) {
    read_streams(i);
    Rank& r = ranks[i];
    r.metrics.flush([&](std::string_view line) {
      if (!line.empty()) on_metric_line_(i, line, since(start));
    });
    for (int* fd : {&r.out.fd, &r.err.fd, &r.metrics_fd}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
    r.outcome.stderr_tail.assign(r.tail.begin(), r.tail.end());
    r.outcome.leaves = r.membership.leaves();
    r.outcome.joins = r.membership.joins();
    job.ranks.push_back(r.outcome);
    job.wall_s = std::max(job.wall_s, r.outcome.ended_s);
  }
  return job;
}

}  // namespace testbed
