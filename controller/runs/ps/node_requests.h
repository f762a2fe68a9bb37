// The lab's leave and join requests as an elastic run reads them (`testbed node
// leave|join`, a node's schedule, its churn: controller/topology/node_churn.h), shared by
// the elastic systems (runs/diloco/elastic_membership.h, runs/ps_elastic/elastic_ps_run.h):
// which workers are outside when the run starts, and each request made since, once.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace testbed {

// The workers (nodes) outside at the start: a node whose schedule brings it in later (its
// first leave, join or crash is a join not yet due), or whose last request before the run
// was a leave. None without a lab directory.
std::set<int> workers_outside_at_start(const std::string& lab_dir,
                                       const std::vector<std::string>& names,
                                       const std::vector<int>& workers);

class NodeRequests {
 public:
  // How often the lab's node states are read: a fraction of any outer step or clock.
  static constexpr double kPollEvery_s = 0.25;

  // Both held by reference: the run's own, which outlive it.
  NodeRequests(const std::string& lab_dir, const std::vector<std::string>& names)
      : lab_dir_(lab_dir), names_(names) {}
  void started(double start_unix_s) { start_unix_s_ = start_unix_s; }

  struct Request {
    size_t node;
    bool leave;  // else a join
  };
  // The requests made since the run started and not returned before, when a poll is due
  // by `now_s` (s since the start); `next_s` is when the next one is.
  std::vector<Request> poll(double now_s, double& next_s);

 private:
  const std::string& lab_dir_;
  const std::vector<std::string>& names_;
  double start_unix_s_ = 0;
  double next_poll_s_ = 0;
  std::set<std::string> seen_;  // "node@at_unix_s"
};

}  // namespace testbed
