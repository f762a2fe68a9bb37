#include "controller/launch/host_outcomes.h"

#include <algorithm>

namespace testbed {

JobOutcome merge_host_outcomes(size_t world_size, const std::vector<int>& local_ranks,
                               const JobOutcome& local, const HostsPart& hosts, bool interrupted) {
  JobOutcome job;
  job.ranks.resize(world_size);
  job.wall_s = local.wall_s;
  for (size_t i = 0; i < local_ranks.size() && i < local.ranks.size(); ++i)
    job.ranks.at(local_ranks[i]) = local.ranks[i];
  bool timed_out = local.status == "timed_out", other_failed = false;
  for (const auto& [host, ranks] : hosts.ranks_of_host) {
    const auto done = hosts.done.find(host);
    if (done == hosts.done.end()) {
      const auto lost = hosts.lost.find(host);
      const std::string why = lost != hosts.lost.end() ? lost->second : "host " + host + " ended";
      for (const int r : ranks) job.ranks.at(r).stderr_tail = {why};
      other_failed = true;
      continue;
    }
    const HostRanksDone& d = done->second;
    for (size_t i = 0; i < d.ranks.size() && i < d.outcomes.size(); ++i)
      job.ranks.at(d.ranks[i]) = d.outcomes[i];
    if (!d.error.empty())
      for (const int r : ranks) job.ranks.at(r).stderr_tail = {"host " + host + ": " + d.error};
    job.wall_s = std::max(job.wall_s, d.wall_s);
    timed_out |= d.status == "timed_out";
    other_failed |= d.status == "failed";
  }
  if (interrupted) {
    job.status = "interrupted";
  } else if (!hosts.failed_host.empty()) {
    job.status = "failed";
    job.failed_rank = hosts.failed_rank >= 0 ? hosts.failed_rank
                                             : hosts.ranks_of_host.at(hosts.failed_host).front();
  } else if (local.status == "failed") {
    job.status = "failed";
    job.failed_rank = local.failed_rank >= 0 ? local_ranks.at(local.failed_rank) : -1;
  } else if (timed_out) {
    job.status = "timed_out";
  } else if (other_failed || local.status == "interrupted") {
    job.status = "failed";  // a host's ranks ended without a rank's failure: its error, its loss
  } else {
    job.status = "completed";
  }
  return job;
}

}  // namespace testbed
