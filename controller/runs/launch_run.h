// A user's own job launched in a lab that is up (`testbed launch`): one rank in each chosen
// node, as torchrun would start one process per host, measured as the built-in strategies
// are: its metric lines into the lab's Prometheus, its WAN bytes, the emulation's health,
// runs/*.json. Its processes are the lab's recorded processes while they run; over hosts,
// the other hosts' ranks run on their hosts (launch_over_hosts.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "netns/stop_signals.h"

namespace testbed {

// `testbed launch`'s command line, parsed.
struct LaunchOptions {
  std::string lab;                   // as given ("" : the only lab); resolved by the run
  std::vector<std::string> command;  // argv; {node}, {rank}, {addr:NODE} are replaced
  std::string nodes = "all";         // "all" or "N1,N2,..."
  std::string job;                   // --name: the job's name in metrics and results
  std::optional<int> master_port;    // unset: the default, moved up by the job's slot
  double max_seconds = 0;            // 0: no limit
  std::optional<double> target_loss;
  std::optional<std::string> agents_listen;  // ADDR:PORT, for ranks on other hosts
  bool json = false;
};

// How a launch ended.
struct LaunchEnd {
  std::string status;  // completed, failed, interrupted, timed out (JobOutcome's)
  int signal = 0;      // the stop signal, when interrupted
};

// Throws UsageError for what the lab or the options contradict, before any rank starts.
// Otherwise the results are written and printed, and the end said; std::nullopt when a
// rank could not be started (said on stderr; nothing is left running).
std::optional<LaunchEnd> run_launch_job(const LaunchOptions& options, const StopSignals& stop);

}  // namespace testbed
