#include "controller/training/mlfabric/aggregation.h"

#include <algorithm>

namespace testbed {
namespace {

// A transfer this small starts when a link first has room: it finds when the link is free.
constexpr double kProbeBytes = 1;

// DetAgg(n): the first n updates straight to the server, the rest grouped at the
// aggregators in turn. Reserves in `network` (a copy per case).
AggregationPlan det_agg(size_t n, const std::vector<AggregationInput>& ordered,
                        const std::vector<int>& aggregators, const AggregationPaths& paths,
                        double model_bytes, LinkReservations& network, double now_s) {
  AggregationPlan plan;
  plan.direct = n;
  plan.transfers.resize(ordered.size());
  plan.to.assign(ordered.size(), -1);
  // t_max: when the server has received every group placed so far. It starts when the
  // link into the server is next free: groups may gather while earlier batches' transfers
  // keep it busy without leaving it idle (Alg. 3's 0 is a batch that finds it idle).
  double t_max = now_s;
  if (!ordered.empty() && !paths.to_server[static_cast<size_t>(ordered[0].worker)].empty()) {
    const size_t into = paths.to_server[static_cast<size_t>(ordered[0].worker)].back();
    t_max = std::max(now_s, network.transfer({into}, kProbeBytes, now_s).start_s);
  }
  double direct_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& g = ordered[i];
    plan.transfers[i] =
        network.reserve(paths.to_server[static_cast<size_t>(g.worker)], g.bytes, now_s);
    t_max = std::max(t_max, plan.transfers[i].end_s);
    direct_bytes += g.bytes;
  }
  if (n > 0) plan.groups.push_back({-1, 0, n, plan.transfers[n - 1], direct_bytes});

  size_t aid = 0;
  AggregationGroup open;
  double arrived = now_s, sum_bytes = 0;  // the open group's last arrival and total size
  const auto close = [&] {
    const auto a = static_cast<size_t>(open.aggregator);
    open.bytes = std::min(sum_bytes, model_bytes);
    open.to_server = network.reserve(paths.to_server[a], open.bytes, arrived);
    t_max = std::max(t_max, open.to_server.end_s);
    plan.groups.push_back(open);
  };
  for (size_t i = n; i < ordered.size();) {
    const auto& g = ordered[i];
    const int a = aggregators[aid];
    const LinkPath& path = paths.between[static_cast<size_t>(g.worker)][static_cast<size_t>(a)];
    const bool last_aggregator = aid + 1 == aggregators.size();
    if (open.count > 0 && !last_aggregator &&
        network.transfer(path, g.bytes, now_s).end_s > t_max) {
      close();  // the update would keep the server waiting: the next aggregator takes it
      ++aid;
      open = {};
      continue;
    }
    if (open.count == 0) {
      open = {a, i, 0, {}};
      arrived = now_s;
      sum_bytes = 0;
    }
    plan.transfers[i] = network.reserve(path, g.bytes, now_s);
    plan.to[i] = a;
    arrived = std::max(arrived, plan.transfers[i].end_s);
    sum_bytes += g.bytes;
    ++open.count;
    ++i;
  }
  if (open.count > 0) close();
  plan.end_s = t_max;
  return plan;
}

}  // namespace

AggregationPlan plan_aggregation(const std::vector<AggregationInput>& ordered,
                                 const std::vector<int>& aggregators, const AggregationPaths& paths,
                                 double model_bytes, LinkReservations& network, double now_s) {
  // Without aggregators only n = |U| exists: every update straight to the server.
  const size_t lowest = aggregators.empty() ? ordered.size() : 0;
  AggregationPlan best;
  LinkReservations best_network;
  bool have = false;
  // From n = |U| down, so a tie keeps the larger n.
  for (size_t n = ordered.size() + 1; n-- > lowest;) {
    LinkReservations trial = network;
    AggregationPlan p = det_agg(n, ordered, aggregators, paths, model_bytes, trial, now_s);
    if (!have || p.end_s < best.end_s) {
      best = std::move(p);
      best_network = std::move(trial);
      have = true;
    }
  }
  network = std::move(best_network);
  return best;
}

}  // namespace testbed
