// `testbed launch` on a slice of a lab spread over hosts (docs/multihost.md#launch): this
// host's ranks run here, each other host's through its `testbed agents`, which the
// controller's CURVE port hands the launch to (launch/hosts_launch.h, launch/host_ranks.h).
// The first rank to fail anywhere, a host lost, --max-seconds or a signal stops every rank
// on every host; the outcome is one, in the job's rank order (launch/host_outcomes.h).
#pragma once

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "controller/launch/hosts_launch.h"
#include "controller/launch/job_runner.h"
#include "controller/training/host_channel_keys.h"

namespace testbed {

// The other hosts' links during the job, as each host reported them.
struct LinksElsewhere {
  std::map<std::string, uint64_t> wan_bytes;   // by "from>to"
  std::map<std::string, HealthReport> health;  // by host
};

struct OverHosts {
  std::string endpoint;  // --agents-listen: tcp://ADDR:PORT
  std::string lab;
  HostChannelKeys keys;
  std::map<std::string, std::vector<int>> ranks_of_host;  // the other hosts' ranks
  LaunchCommand command;
};

// `runner` runs this host's ranks (`local_ranks`, their numbers), or is null when none is
// here. `on_line` gets the other hosts' lines on this thread; the runner's callbacks run on
// a thread of their own. `hosts_summary` gets the channel's figures for the summary's
// "hosts", and `elsewhere` what the other hosts' links did (as each reported). Throws
// std::system_error when a local rank cannot be started, after stopping the other hosts.
JobOutcome launch_over_hosts(zmq::context_t& context, const OverHosts& setup, JobRunner* runner,
                             const std::vector<int>& local_ranks, size_t world_size,
                             HostsLaunch::OnLine on_line, const std::atomic<int>& signal,
                             std::ostream& progress, nlohmann::json& hosts_summary,
                             LinksElsewhere& elsewhere);

}  // namespace testbed
