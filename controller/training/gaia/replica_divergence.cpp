#include "controller/training/gaia/replica_divergence.h"

#include <algorithm>

namespace testbed {
namespace {

double upper_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

void ReplicaDivergence::polled(double t) {
  replies_.clear();  // an older poll's stragglers are not this one's
  waiting_ = true;
  polled_at_ = t;
}

void ReplicaDivergence::reply(int node, const ReplicaDigest& d) {
  if (!waiting_) return;
  replies_[node] = d;
  if (replies_.size() < data_centers_) return;
  DivergenceSample s;
  s.t = polled_at_;
  for (auto a = replies_.begin(); a != replies_.end(); ++a) {
    s.waiting += a->second.waiting_keys;
    for (auto b = std::next(a); b != replies_.end(); ++b) {
      const double distance = sketch_distance(a->second.sketch, b->second.sketch);
      const double norm = (a->second.norm + b->second.norm) / 2;
      const double relative = norm > 0 ? distance / norm : 0.0;
      if (relative >= s.relative) {
        s.relative = relative;
        s.distance = distance;
      }
    }
  }
  samples_.push_back(s);
  replies_.clear();
  waiting_ = false;
}

nlohmann::json ReplicaDivergence::summary(const std::optional<FaultWindow>& fault) const {
  nlohmann::json out;
  out["method"] =
      "every eval interval the controller asks each data center for a count sketch of its "
      "replica (512 buckets, agent/contracts/gaia/replica_digest.h): relative is the largest "
      "estimated |x_a - x_b| over pairs, over the pair's mean |x|; waiting is the significant "
      "updates queued for the WAN";
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> all;
  for (const auto& s : samples_) {
    rows.push_back({s.t, s.relative, s.waiting});
    all.push_back(s.relative);
  }
  out["samples"] = rows;
  out["median"] = upper_median(all);
  out["max"] = all.empty() ? 0.0 : *std::max_element(all.begin(), all.end());
  if (!fault) return out;
  std::vector<double> before;
  std::optional<double> last_before;
  double at_heal = 0, peak = 0;
  std::optional<double> caught_up;
  for (const auto& s : samples_) {
    if (s.t >= fault->from_s - kBeforeS && s.t < fault->from_s) before.push_back(s.relative);
    if (s.t < fault->from_s) last_before = s.relative;
    if (s.t <= fault->to_s) at_heal = s.relative;  // the last poll before the heal
    if (s.t >= fault->from_s) peak = std::max(peak, s.relative);
  }
  // No poll in the second before it: the last one before it; none at all (a fault from the
  // run's first moments): no level to come back to, and no catch-up figure.
  std::optional<double> usual = before.empty() ? last_before : upper_median(before);
  for (const auto& s : samples_)
    if (usual && s.t >= fault->to_s && !caught_up && s.relative <= *usual)
      caught_up = s.t - fault->to_s;
  out["fault"] = {{"from_s", fault->from_s}, {"heal_s", fault->to_s}};
  out["before"] = usual ? nlohmann::json(*usual) : nlohmann::json(nullptr);
  out["at_heal"] = at_heal;
  out["peak"] = peak;
  out["caught_up_s"] = caught_up ? nlohmann::json(*caught_up) : nlohmann::json(nullptr);
  return out;
}

}  // namespace testbed
