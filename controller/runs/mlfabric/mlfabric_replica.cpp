// MLfabric-A's replica (Sec. 5.3) in a parameter-server session: which node holds it, and
// what the run measured of it. The bound is checked from what the server and the replica
// recorded as they applied (divergence.h), not from the scheduler's plan: a transfer may
// run slower than planned.
#include <algorithm>
#include <cmath>

#include "agent/contracts/ps_node_report.h"
#include "controller/options/usage_error.h"
#include "controller/runs/mlfabric/mlfabric_run.h"
#include "controller/training/mlfabric/divergence.h"

namespace testbed {

int replica_node(const std::string& replica, const std::vector<std::string>& names, int server,
                 const std::vector<int>& workers, const std::string& option) {
  if (replica.empty()) return -1;
  const auto it = std::find(names.begin(), names.end(), replica);
  if (it == names.end()) throw UsageError(option + ": no node named '" + replica + "'");
  const int node = static_cast<int>(it - names.begin());
  // The paper's replica is a process of its own (on the server's machine); here it holds a
  // node of its own, so its transfers and applies are its own, not a server's or a worker's.
  if (node == server)
    throw UsageError(option + ": " + replica + " is the server; it needs a node of its own");
  if (std::find(workers.begin(), workers.end(), node) != workers.end())
    throw UsageError(option + ": " + replica + " runs a worker; it needs a node of its own " +
                     "(--workers names the workers)");
  return node;
}

nlohmann::json MlfabricRun::replication_summary(uint64_t div_max) const {
  // Each copy's MLfabric sections, and its values from the core's report.
  struct Copy {
    MlfabricShardSections sections;
    std::optional<std::vector<float>> values;
  };
  std::optional<Copy> server, replica;
  uint64_t replicated = 0;
  const std::vector<MlfabricReport> reports = this->reports();
  for (size_t n = 0; n < reports.size(); ++n) {
    const MlfabricReport& r = reports[n];
    if (r.worker) replicated += r.worker->scheduled.replicated;
    if (!r.shard || !r.shard->ordered || !r.shard->apply_log) continue;
    const nlohmann::json& st = run_.node_stats()[n];
    const std::optional<PsNodeReport> core =
        is_ps_node_report(st) ? std::optional(ps_node_report_from(st)) : std::nullopt;
    Copy copy{*r.shard, core && core->shard ? core->shard->values : std::nullopt};
    (r.role == "replica" ? replica : server) = std::move(copy);
  }
  if (!server || !replica)
    return {{"error", "the server or the replica reported no record of what it applied"}};
  const auto log = [](const MlfabricShardSections& s) {
    std::vector<ApplyRecord> out;
    for (const auto& [applied, ns] : *s.apply_log) out.push_back({applied, ns});
    return out;
  };
  const DivergenceReport d = measure_divergence(log(server->sections), log(replica->sections),
                                                scheduler_->norms(), div_max);
  nlohmann::json out = {{"div_max", div_max},
                        {"max_lead", d.max_lead},
                        {"server_applies_checked", d.checks},
                        {"over_bound", d.over_bound},
                        {"within_bound", d.over_bound == 0},
                        {"max_norm_bound", d.max_norm_bound},
                        {"server_applied", server->sections.ordered->applied},
                        {"replica_applied", replica->sections.ordered->applied},
                        {"replica_received_messages", replica->sections.ordered->messages},
                        {"replica_received_bytes", replica->sections.ordered->bytes},
                        {"workers_replicated", replicated}};
  // With every place applied on both, the models differ at most by the order of float
  // additions inside the aggregators' sums (none without aggregators).
  if (server->values && replica->values) {
    const std::vector<float>& a = *server->values;
    const std::vector<float>& b = *replica->values;
    double diff = 0, norm = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
      norm += static_cast<double>(a[i]) * a[i];
    }
    out["final_difference_l2"] = std::sqrt(diff);
    out["final_model_l2"] = std::sqrt(norm);
    out["final_models_identical"] = a == b;
  }
  return out;
}

}  // namespace testbed
