#include "controller/launch/job_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <ostream>
#include <system_error>

#include "controller/launch/job_metrics.h"
#include "netns/crash_point.h"
#include "netns/named_netns.h"
#include "netns/node_identity.h"
#include "netns/process_launcher.h"

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

// Splits a byte stream into lines. A line longer than a metrics line may be is cut there,
// so a job that never writes a newline cannot grow the controller's memory.
class LineBuffer {
 public:
  template <typename F>
  void feed(std::string_view data, F&& on_line) {
    partial_.append(data);
    size_t start = 0;
    for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1)
      on_line(std::string_view(partial_).substr(start, nl - start));
    partial_.erase(0, start);
    if (partial_.size() > kMaxMetricsLine + 1) {
      on_line(std::string_view(partial_));
      partial_.clear();
    }
  }
  template <typename F>
  void flush(F&& on_line) {
    if (!partial_.empty()) on_line(std::string_view(partial_));
    partial_.clear();
  }

 private:
  std::string partial_;
};

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
};

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reads what a non-blocking fd has; false at end of file or error.
template <typename F>
bool drain(int fd, F&& on_data) {
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      on_data(std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    return false;
  }
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

  const auto stop_all = [&](int sig) {
    for (auto& r : ranks)
      if (r.running) signal_job_group(r.outcome.pid, sig);
  };

  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank& r = ranks[i];
    r.plan = &ranks_[i];
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
    r.out.log.open(r.plan->stdout_path);
    r.err.log.open(r.plan->stderr_path);
    // Created empty, so the job may open it for appending and we may follow it at once.
    std::ofstream(r.plan->metrics_path, std::ios::app).flush();
    r.metrics_fd = open(r.plan->metrics_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    try {
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
      spec.parent_death_signal = SIGKILL;
      spec.env = merge_environment(base_env, r.plan->env);
      r.outcome.pid = launch(spec);
    } catch (...) {
      stop_all(SIGKILL);
      for (auto& s : ranks) {
        if (s.running) waitpid(s.outcome.pid, nullptr, 0);
        for (int fd : {s.out.fd, s.err.fd, s.metrics_fd})
          if (fd >= 0) close(fd);
      }
      throw;
    }
    r.running = true;
    // Killed here, the rank is unrecorded: PR_SET_PDEATHSIG ends it with this process.
    crash_point("launch:rank started, not recorded");
    on_start_(*r.plan, r.outcome.pid);
  }

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

  const auto echo = [&](const Rank& r, std::string_view line) {
    if (options_.echo) *options_.echo << "[" << r.plan->node << "] " << line << "\n" << std::flush;
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
      r.out.log.write(out_data.data(), static_cast<std::streamsize>(out_data.size()));
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
        close(r.out.fd);
        r.out.fd = -1;
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
        r.err.lines.feed(data, keep);
      });
      if (!open) {
        r.err.lines.flush(keep);
        r.err.log.flush();
        close(r.err.fd);
        r.err.fd = -1;
      }
    }
  };

  for (;;) {
    std::vector<pollfd> fds;
    for (const auto& r : ranks)
      for (int fd : {r.out.fd, r.err.fd})
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    if (!fds.empty()) {
      poll(fds.data(), fds.size(), kPollMs);
    } else {
      usleep(kPollMs * 1000);
    }
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
      int status = 0;
      waitpid(r.outcome.pid, &status, 0);
      r.running = false;
      r.outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      r.outcome.ended_s = since(start);
      r.outcome.stopped = stopping;
      if (r.outcome.status != 0 && !stopping) {
        job.failed_rank = static_cast<int>(&r - ranks.data());
        begin_stop("failed");
      }
    }
    const bool any_running =
        std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; });
    if (!any_running) {
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
    job.ranks.push_back(r.outcome);
    job.wall_s = std::max(job.wall_s, r.outcome.ended_s);
  }
  return job;
}

}  // namespace testbed
