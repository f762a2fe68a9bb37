// A Gaia run's replicas as they drift apart and back (replica_divergence.h), and when its
// data centers presumed a mirror cut off (agent/protocols/gaia/mirror_watch.h), placed
// against the lab's faults from its timeline.
#include <algorithm>

#include "agent/contracts/gaia/gaia_events.h"
#include "controller/observe/report.h"
#include "controller/runs/gaia/gaia_run.h"

namespace testbed {

double GaiaRun::drive(double now_s) {
  if (!divergence_) return kNever;
  // One poll an eval interval. A poll a data center never answers (paused, dead) is given
  // up after a few intervals, so the rest are still polled.
  const double every = std::max(o_.eval_every_s, 0.05);
  const bool due = now_s - divergence_->polled_at() >= every;
  const bool given_up = now_s - divergence_->polled_at() >= 4 * every;
  // The session's loop looks in every 100 ms: the poll's own schedule needs no more.
  if (!due || (!divergence_->answered() && !given_up)) return kNever;
  run_.agents().broadcast({{"cmd", "digest"}});
  divergence_->polled(now_s);
  return kNever;
}

bool GaiaRun::event(size_t node, const nlohmann::json& e, double t) {
  const std::string kind = e.value("event", "");
  if (kind != "digest" && kind != MirrorCut::kEvent) return false;
  const std::vector<std::string>& names = run_.names();
  try {
    if (e.at("event") == "digest") {
      if (divergence_) divergence_->reply(static_cast<int>(node), replica_digest_from_json(e));
      return true;
    }
    const MirrorCut cut = mirror_cut_from_json(e, names.size());
    mirror_cuts_.push_back(
        {{"t", t}, {"data_center", names.at(node)}, {"mirror", names[cut.node]}, {"cut", cut.cut}});
  } catch (const std::exception&) {
    ++malformed_digests_;  // an agent's message is not trusted to be well formed
  }
  return true;
}

nlohmann::json GaiaRun::partition_summary() const {
  nlohmann::json out;
  out["mirror_cuts"] = mirror_cuts_;
  out["malformed_messages"] = malformed_digests_;
  if (!divergence_) return out;
  // The lab's faults during the run, as one window: from the first link down to the last
  // one back up (a partition downs every crossing direction at once).
  std::optional<FaultWindow> window;
  const std::string& lab_dir = run_.lab_dir();
  const double wall_s = run_.wall_s();
  const auto faults = lab_dir.empty() ? std::vector<FaultInterval>{} : lab_fault_intervals(lab_dir);
  for (const auto& f : faults) {
    if (f.state != "down") continue;
    const double from = f.from_unix_s - start_unix_s_;
    const double to = std::min(f.to_unix_s - start_unix_s_, wall_s);
    if (to < 0 || from > wall_s) continue;  // before or after this run
    if (!window) window = FaultWindow{from, to};
    window->from_s = std::min(window->from_s, from);
    window->to_s = std::max(window->to_s, to);
  }
  out["divergence"] = divergence_->summary(window);
  return out;
}

}  // namespace testbed
