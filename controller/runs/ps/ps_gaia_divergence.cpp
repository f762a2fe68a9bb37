// A Gaia run's replicas as they drift apart and back (replica_divergence.h), and when its
// data centers presumed a mirror cut off (agent/protocols/gaia/mirror_watch.h), placed
// against the lab's faults from its timeline.
#include <algorithm>

#include "agent/contracts/message_fields.h"
#include "controller/observe/report.h"
#include "controller/runs/ps/ps_session.h"

namespace testbed {

void PsSession::poll_divergence(double now_s) {
  // One poll an eval interval. A poll a data center never answers (paused, dead) is given
  // up after a few intervals, so the rest are still polled.
  const double every = std::max(o_.eval_every_s, 0.05);
  const bool due = now_s - divergence_->polled_at() >= every;
  const bool given_up = now_s - divergence_->polled_at() >= 4 * every;
  if (!due || (!divergence_->answered() && !given_up)) return;
  agents_.broadcast({{"cmd", "digest"}});
  divergence_->polled(now_s);
}

void PsSession::on_gaia_event(size_t node, const nlohmann::json& e, double t) {
  try {
    if (e.at("event") == "digest") {
      if (divergence_) divergence_->reply(static_cast<int>(node), replica_digest_from_json(e));
      return;
    }
    const FieldReader r(e, "mirror_cut");
    const auto mirror = r.required<size_t>("node");
    if (mirror >= names_.size()) throw r.error("node", "is not a node of the lab");
    mirror_cuts_.push_back({{"t", t},
                            {"data_center", names_.at(node)},
                            {"mirror", names_[mirror]},
                            {"cut", r.required<bool>("cut")}});
  } catch (const std::exception&) {
    ++malformed_digests_;  // an agent's message is not trusted to be well formed
  }
}

nlohmann::json PsSession::gaia_partition_summary() const {
  nlohmann::json out;
  out["mirror_cuts"] = mirror_cuts_;
  out["malformed_messages"] = malformed_digests_;
  if (!divergence_) return out;
  // The lab's faults during the run, as one window: from the first link down to the last
  // one back up (a partition downs every crossing direction at once).
  std::optional<FaultWindow> window;
  const auto faults =
      lab_dir_.empty() ? std::vector<FaultInterval>{} : lab_fault_intervals(lab_dir_);
  for (const auto& f : faults) {
    if (f.state != "down") continue;
    const double from = f.from_unix_s - start_unix_s_;
    const double to = std::min(f.to_unix_s - start_unix_s_, wall_s_);
    if (to < 0 || from > wall_s_) continue;  // before or after this run
    if (!window) window = FaultWindow{from, to};
    window->from_s = std::min(window->from_s, from);
    window->to_s = std::max(window->to_s, to);
  }
  out["divergence"] = divergence_->summary(window);
  return out;
}

}  // namespace testbed
