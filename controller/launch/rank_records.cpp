#include "controller/launch/rank_records.h"

#include "controller/lab/teardown.h"

namespace testbed {

void record_rank(const LabStore& store, const std::string& lab, const RankPlan& rank, pid_t pid) {
  auto lock = store.lock(lab, /*wait=*/true);
  LabState s = store.load(lab);
  s.processes.push_back(
      owned_by_me({pid, process_start_time(pid), rank.node, rank.argv, /*group=*/true}));
  store.save(s);
}

void forget_ranks(const LabStore& store, const std::string& lab, const JobOutcome& outcome) {
  std::vector<int> pids;
  for (const RankOutcome& r : outcome.ranks) {
    pids.push_back(r.pid);
    pids.insert(pids.end(), r.earlier_pids.begin(), r.earlier_pids.end());
  }
  forget_processes(store, lab, pids);
}

}  // namespace testbed
