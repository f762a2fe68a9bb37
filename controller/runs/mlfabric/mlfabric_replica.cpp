// MLfabric-A's replica (Sec. 5.3) in a parameter-server session: which node holds it, and
// what the run measured of it. The bound is checked from what the server and the replica
// recorded as they applied (divergence.h), not from the scheduler's plan: a transfer may
// run slower than planned.
#include <algorithm>
#include <cmath>

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
  const nlohmann::json *server = nullptr, *replica = nullptr;
  uint64_t replicated = 0;
  for (const auto& st : run_.node_stats()) {
    if (st.contains("replica")) replica = &st["replica"];
    if (st.contains("server") && st["server"].contains("ordered")) server = &st["server"];
    if (st.contains("scheduled")) replicated += st["scheduled"].value("replicated", uint64_t{0});
  }
  if (!server || !replica || !server->contains("apply_log") || !replica->contains("apply_log"))
    return {{"error", "the server or the replica reported no record of what it applied"}};
  const auto log = [](const nlohmann::json& j) {
    std::vector<ApplyRecord> out;
    for (const auto& r : j.at("apply_log")) out.push_back({r[0], r[1]});
    return out;
  };
  const DivergenceReport d =
      measure_divergence(log(*server), log(*replica), scheduler_->norms(), div_max);
  nlohmann::json out = {{"div_max", div_max},
                        {"max_lead", d.max_lead},
                        {"server_applies_checked", d.checks},
                        {"over_bound", d.over_bound},
                        {"within_bound", d.over_bound == 0},
                        {"max_norm_bound", d.max_norm_bound},
                        {"server_applied", (*server)["ordered"]["applied"]},
                        {"replica_applied", (*replica)["ordered"]["applied"]},
                        {"replica_received_messages", (*replica)["ordered"]["messages"]},
                        {"replica_received_bytes", (*replica)["ordered"]["bytes"]},
                        {"workers_replicated", replicated}};
  // With every place applied on both, the models differ at most by the order of float
  // additions inside the aggregators' sums (none without aggregators).
  if (server->contains("values") && replica->contains("values")) {
    const auto a = (*server)["values"].get<std::vector<float>>();
    const auto b = (*replica)["values"].get<std::vector<float>>();
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
