#include "controller/training/mlfabric/replication.h"

#include <algorithm>

namespace testbed {
namespace {

std::vector<AggregationInput> inputs_of(const std::vector<ReplicaCandidate>& candidates,
                                        size_t count) {
  std::vector<AggregationInput> in;
  for (size_t i = 0; i < count; ++i) in.push_back({candidates[i].worker, candidates[i].bytes});
  return in;
}

// When the replica has applied each place a transfer brings: an update sent directly
// applies alone, a sum with its group; the replica applies in order, so what arrives
// before an earlier place waits for it. (time, places covered up to and including it)
std::vector<std::pair<double, size_t>> commits(const AggregationPlan& plan) {
  std::vector<std::pair<double, size_t>> out;
  double t = 0;
  size_t covered = 0;
  for (const auto& g : plan.groups) {
    if (g.aggregator < 0) {
      for (size_t i = g.first; i < g.first + g.count; ++i) {
        t = std::max(t, plan.transfers[i].end_s);
        out.emplace_back(t, ++covered);
      }
      continue;
    }
    t = std::max(t, g.to_server.end_s);
    covered += g.count;
    out.emplace_back(t, covered);
  }
  return out;
}

// No route brings the first candidate's place to the replica before its link into the
// replica, free from now, has carried it (or the sum it is in, never smaller than it but
// for the model's cap): with a backlog of punted updates, Alg. 3 over all of them each
// batch costs far more than this (quadratic in the candidates).
double first_arrival_bound(const ReplicaCandidate& first, const AggregationPaths& to_replica,
                           double model_bytes, const LinkReservations& network, double now_s) {
  const LinkPath& path = to_replica.to_server.at(static_cast<size_t>(first.worker));
  if (path.empty()) return now_s;
  return network.transfer({path.back()}, std::min(first.bytes, model_bytes), now_s).end_s;
}

}  // namespace

ReplicationPlan plan_replication(const std::vector<ReplicaCandidate>& candidates,
                                 const ReplicationState& state, const std::vector<int>& aggregators,
                                 const AggregationPaths& to_replica, double model_bytes,
                                 LinkReservations& network, double now_s) {
  ReplicationPlan out;
  // The replica must hold at least this many places when the server has all it ordered.
  const uint64_t needed =
      state.server_ordered > state.div_max ? state.server_ordered - state.div_max : 0;
  out.lead_at_end = state.server_ordered - std::min(state.server_ordered, state.replica_planned);
  if (!candidates.empty() && state.replica_planned >= needed &&
      first_arrival_bound(candidates.front(), to_replica, model_bytes, network, now_s) >
          state.server_end_s)
    return out;  // within the bound and nothing can arrive by T_last: all are punted
  if (!candidates.empty()) {
    // Tentative: every candidate, on a copy of the network the server's transfers left.
    LinkReservations tentative = network;
    const AggregationPlan all =
        plan_aggregation(inputs_of(candidates, candidates.size()), aggregators, to_replica,
                         model_bytes, tentative, now_s);
    const auto done = commits(all);
    for (const auto& [t, covered] : done)
      if (t <= state.server_end_s) out.frozen = covered;
    if (state.replica_planned + out.frozen < needed) {
      // Fig. 3b: the server's last update waits for the earliest replica group that
      // brings the lead within the bound. The candidates run up to the server's last
      // place, so one always does.
      for (const auto& [t, covered] : done) {
        if (state.replica_planned + covered < needed) continue;
        out.frozen = covered;
        out.hold_last_until_s = t;
        break;
      }
    }
  }
  out.lead_at_end =
      state.server_ordered - std::min(state.server_ordered, state.replica_planned + out.frozen);
  if (out.frozen > 0)
    out.sends = plan_aggregation(inputs_of(candidates, out.frozen), aggregators, to_replica,
                                 model_bytes, network, now_s);
  return out;
}

}  // namespace testbed
