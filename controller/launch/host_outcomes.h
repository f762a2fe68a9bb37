// One outcome for a launch across hosts: this host's JobRunner's and each other host's
// (host_launch_messages.h), as one JobOutcome in the job's rank order, so that the summary
// and the failure lines read as on one box. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "controller/launch/host_launch_messages.h"
#include "controller/launch/job_runner.h"

namespace testbed {

struct HostsPart {
  std::map<std::string, std::vector<int>> ranks_of_host;  // the other hosts' ranks
  std::map<std::string, HostRanksDone> done;              // as each host told
  std::map<std::string, std::string> lost;                // hosts lost, with why
  // What stopped the job first: a host ("": this host's ranks or nothing), and that host's
  // failed rank (-1: none known, as for a host lost).
  std::string failed_host;
  int failed_rank = -1;
};

// `local` ran `local_ranks` (its ranks in order); `interrupted`: a signal stopped the job
// before anything failed. A rank no host told of has status -1 and its host's loss as its
// last stderr line.
JobOutcome merge_host_outcomes(size_t world_size, const std::vector<int>& local_ranks,
                               const JobOutcome& local, const HostsPart& hosts, bool interrupted);

}  // namespace testbed
