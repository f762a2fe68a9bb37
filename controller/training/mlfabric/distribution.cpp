#include "controller/training/mlfabric/distribution.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

namespace testbed {
namespace {

// One candidate: the first m distributors used, the first n of `order` (the workers that
// are no distributor used, soonest from the server first) served directly.
DistributionPlan try_split(size_t m, size_t n, const std::vector<int>& distributors,
                           const std::vector<int>& order, const DistributionPaths& paths,
                           double bytes, LinkReservations& network, double now_s) {
  DistributionPlan plan;
  plan.start_s = now_s;
  plan.arrives_s.assign(paths.from_server.size(), now_s);
  plan.server_start_s.assign(paths.from_server.size(), -1);
  const auto from_server = [&](int w) {
    const TransferTimes t =
        network.reserve(paths.from_server[static_cast<size_t>(w)], bytes, now_s);
    plan.server_start_s[static_cast<size_t>(w)] = t.start_s;
    return t.end_s;
  };
  // The last distributor first, then backwards (Sec. 10.3); then the direct group.
  std::vector<double> has_model(m);
  for (size_t j = m; j-- > 0;) {
    has_model[j] = from_server(distributors[j]);
    plan.arrives_s[static_cast<size_t>(distributors[j])] = has_model[j];
  }
  double t_max = now_s;
  for (double t : has_model) t_max = std::max(t_max, t);
  DistributionGroup direct;
  for (size_t i = 0; i < n; ++i) {
    const int w = order[i];
    plan.arrives_s[static_cast<size_t>(w)] = from_server(w);
    t_max = std::max(t_max, plan.arrives_s[static_cast<size_t>(w)]);
    direct.workers.push_back(w);
  }
  plan.server_sends = static_cast<int>(m + n);
  // The rest, in order, to the distributors that got the model first (the last one).
  std::vector<DistributionGroup> groups(m);
  for (size_t j = 0; j < m; ++j) groups[j] = {distributors[j], {distributors[j]}};
  size_t j = m;  // the group filling: m-1 down to 0
  for (size_t i = n; i < order.size(); ++i) {
    const int w = order[i];
    for (;;) {
      const size_t g = j - 1;
      const LinkPath& path =
          paths.between[static_cast<size_t>(distributors[g])][static_cast<size_t>(w)];
      const bool last = g == 0;
      const bool only_self = groups[g].workers.size() == 1;
      if (!last && !only_self && network.transfer(path, bytes, has_model[g]).end_s > t_max) {
        --j;  // it would arrive after the server is done: the next distributor takes it
        continue;
      }
      plan.arrives_s[static_cast<size_t>(w)] = network.reserve(path, bytes, has_model[g]).end_s;
      groups[g].workers.push_back(w);
      break;
    }
  }
  for (size_t g = m; g-- > 0;) plan.groups.push_back(groups[g]);
  if (!direct.workers.empty()) plan.groups.push_back(direct);
  plan.end_s = *std::max_element(plan.arrives_s.begin(), plan.arrives_s.end());
  return plan;
}

}  // namespace

DistributionPlan plan_distribution(const std::vector<int>& distributors,
                                   const DistributionPaths& paths, double model_bytes,
                                   LinkReservations& network, double now_s) {
  const size_t workers = paths.from_server.size();
  DistributionPlan best;
  LinkReservations best_network = network;
  auto best_key = std::make_tuple(std::numeric_limits<double>::infinity(), size_t{0}, size_t{0});
  for (size_t m = 0; m <= std::min(distributors.size(), workers); ++m) {
    // The workers that are no distributor, soonest from the server first (ties: lower index).
    std::vector<int> order;
    for (size_t w = 0; w < workers; ++w)
      if (std::find(distributors.begin(), distributors.begin() + static_cast<std::ptrdiff_t>(m),
                    static_cast<int>(w)) == distributors.begin() + static_cast<std::ptrdiff_t>(m))
        order.push_back(static_cast<int>(w));
    std::vector<double> alone(workers);
    for (int w : order)
      alone[static_cast<size_t>(w)] =
          network.transfer(paths.from_server[static_cast<size_t>(w)], model_bytes, now_s).end_s;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return alone[static_cast<size_t>(a)] < alone[static_cast<size_t>(b)];
    });
    // With distributors, every split point; without, all go directly.
    for (size_t n = m == 0 ? order.size() : 0; n <= order.size(); ++n) {
      LinkReservations trial = network;
      DistributionPlan p = try_split(m, n, distributors, order, paths, model_bytes, trial, now_s);
      // Fewer distributors, then more direct workers, win a tie.
      const auto key = std::make_tuple(p.end_s, m, order.size() - n);
      if (key < best_key) {
        best = std::move(p);
        best_key = key;
        best_network = std::move(trial);
      }
    }
  }
  network = std::move(best_network);
  return best;
}

}  // namespace testbed
