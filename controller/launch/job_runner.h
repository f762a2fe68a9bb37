// Runs a launched job: one process per rank in its node (network and UTS namespaces, the
// node's hosts file), each the leader of a process group of its own, and watches them
// until all have ended. Their output goes to the run directory and, prefixed by node, to
// the terminal; metric lines (from $TESTBED_METRICS, which is followed as it grows, and
// from stdout behind kMetricsPrefix) go to a callback.
//
// Ending: the first rank that exits non-zero (or dies of a signal) fails the job, and
// the others are stopped: SIGTERM to their groups, SIGKILL after a grace period. So do
// --max-seconds and an interrupt. A rank that ends is followed by SIGKILL to what is left
// of its group, so no job leaves a process behind; and every rank gets SIGKILL should the
// controller itself die (PR_SET_PDEATHSIG).
//
// A node's crash (a fault: controller/dynamics/node_faults.h) is not a failure: the rank it
// killed waits, the others go on, and a restart of the node runs the rank again with the
// same command and environment, its output appended to the same files. A rank crashed and
// never restarted fails the job once every other rank has ended (or at once, if none runs).
//
// A node's leave and join requests (rank_membership.h) drain the rank (SIGTERM) and run it
// again: an elastic job's membership, which the job itself re-forms. Every start of a rank
// has TESTBED_RANK_RUN (1, 2, ...), TESTBED_RANK_JOINED (1 when a join started it) and
// TESTBED_RANKS_OUTSIDE (the ranks outside at the launch, comma-separated) set.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controller/launch/launch_plan.h"
#include "controller/launch/rank_membership.h"

namespace testbed {

// Tells a rank killed by a crash of its node from one that failed, and when the node is
// restarted. The lab's nodes.json in a launch (lab_rank_faults.h); a fake in tests.
class RankFaults {
 public:
  virtual ~RankFaults() = default;
  // When a crash of `node` killed `pid`: the node's restart count at that crash.
  virtual std::optional<int> crash_of(const std::string& node, pid_t pid) = 0;
  // The node's restart count now: a crashed rank runs again once it exceeds its crash's.
  virtual int restarts(const std::string& node) = 0;
  // The node's latest leave or join request, if any (polled a few times a second).
  virtual std::optional<MembershipRequest> membership(const std::string& /*node*/) {
    return std::nullopt;
  }
};

struct JobRunOptions {
  double max_seconds = 0;  // 0: no limit
  // How long a stopped rank gets between SIGTERM and SIGKILL. One second lets a framework
  // flush and close its sockets; the acceptance asks others stopped within two.
  double stop_grace_s = 1.0;
  // How long a rank told to leave may drain before SIGKILL: an outer step of an elastic job
  // across a WAN takes seconds to minutes; a job that ignores SIGTERM must not hang the run.
  double leave_grace_s = 300;
  std::ostream* echo = nullptr;  // prefixed output lines; null: none
  // Instead of `echo`: each output line as it is, with its rank (a host of a lab spread over
  // hosts sends them to the controller, launch/host_ranks.h). Called on run()'s thread.
  std::function<void(const RankPlan&, std::string_view line)> on_output;
  // Put before each rank's command: the rank supervisor (rank_supervisor.h), so that a
  // controller's death also ends what the rank started. Empty: the command runs itself.
  std::vector<std::string> supervisor;
  RankFaults* faults = nullptr;  // null: every rank's death by a signal is a failure
  // The OOM kills counted so far in a node's control group, by namespace (node_cgroup.h):
  // a rank killed while it rose was killed by its node's memory limit. Null: not asked.
  std::function<uint64_t(const std::string& ns)> oom_kills;
};

struct RankOutcome {
  pid_t pid = -1;        // its last run's
  int status = -1;       // exit status, or 128 + signal; -1 not started
  bool stopped = false;  // ended by the testbed (another rank failed, a limit, Ctrl-C)
  double ended_s = 0;    // since the launch
  std::vector<std::string> stderr_tail;  // its last lines, to name a failure by
  std::vector<pid_t> earlier_pids;       // its runs before a crash, oldest first
  int crashes = 0;                       // by a fault of its node
  bool crashed = false;                  // its last run ended by a crash, not restarted
  bool out_of_memory = false;            // killed by its node's memory limit (OOM killer)
  int leaves = 0, joins = 0;             // its node's requests it took
  bool outside = false;                  // it ended outside (left, or never joined)
  double running_s = 0;                  // its runs' time together: its time in
};

struct JobOutcome {
  std::string status;    // "completed", "failed", "timed_out" or "interrupted"
  int failed_rank = -1;  // the first rank that failed, when status is "failed"
  double wall_s = 0;     // from the first start to the last end
  std::vector<RankOutcome> ranks;
};

class JobRunner {
 public:
  // Called right after each rank starts (and starts again after a restart), before
  // anything can fail: records it.
  using OnStart = std::function<void(const RankPlan&, pid_t)>;
  // A metric line from rank `rank`, at `t_s` seconds since the launch.
  using OnMetricLine = std::function<void(size_t rank, std::string_view line, double t_s)>;

  JobRunner(std::vector<RankPlan> ranks, JobRunOptions options, OnStart on_start,
            OnMetricLine on_metric_line);

  // Starts every rank and returns when all have ended. `interrupt` non-zero (a signal
  // number) stops the job. Throws std::system_error when a rank cannot be started, after
  // stopping those already started.
  JobOutcome run(const std::atomic<int>& interrupt);

 private:
  std::vector<RankPlan> ranks_;
  JobRunOptions options_;
  OnStart on_start_;
  OnMetricLine on_metric_line_;
};

// Sends `sig` to a rank's process group (its leader's pid is the group's id).
void signal_job_group(pid_t leader, int sig);

}  // namespace testbed
