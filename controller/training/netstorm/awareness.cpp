#include "controller/training/netstorm/awareness.h"

#include "controller/training/netstorm/auxiliary_paths.h"
#include "controller/training/strategies.h"

namespace testbed {
namespace {

constexpr int kProbeChunkNum = 4;  // Table II: samples per estimate

}  // namespace

PassiveAwareness::PassiveAwareness(const SyncPolicy& first, double update_time_s,
                                   Clock::time_point now)
    : update_time_s_(update_time_s), last_update_(now) {
  for (const auto& tree : first.trees) roots_.push_back(tree.root);
}

void PassiveAwareness::add_samples(int to, const std::map<size_t, LinkSample>& samples,
                                   ThroughputGraph& graph) {
  for (const auto& [peer, s] : samples) {
    const int from = static_cast<int>(peer);
    auto& a = samples_[{from, to}];
    a.bytes += s.bytes;
    a.seconds += s.seconds;
    a.count += s.count;
    if (a.count >= kProbeChunkNum && a.seconds > 0) {
      graph.mbit[static_cast<size_t>(from)][static_cast<size_t>(to)] =
          a.bytes * 8 / a.seconds / 1e6;
      a = Accumulated{};
    }
  }
}

std::optional<SyncPolicy> PassiveAwareness::maybe_rebuild(const ThroughputGraph& graph,
                                                          const SyncPolicy& current,
                                                          Clock::time_point now) {
  if (std::chrono::duration<double>(now - last_update_).count() < update_time_s_)
    return std::nullopt;
  last_update_ = now;
  SyncPolicy next = netstorm_policy(graph, roots_);
  next.strategy = current.strategy;
  next.version = current.version + 1;
  // Auxiliary paths are refreshed with the trees (Sec. VII-B), with the same knobs.
  if (current.aux) add_auxiliary_paths(next, graph, *current.aux);
  return next;
}

}  // namespace testbed
