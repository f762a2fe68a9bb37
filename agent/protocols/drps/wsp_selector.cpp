#include "agent/protocols/drps/wsp_selector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace testbed {
namespace {

constexpr double kNsPerS = 1e9;
// TE_r divides the wait; a worker whose iteration took no measurable time would make any
// wait infinitely costly, which is what it means (it can never afford to wait), bar the
// division by zero: a microsecond is below anything a run measures.
constexpr double kShortestIterationS = 1e-6;

}  // namespace

WspSelector::WspSelector(int workers, int delta)
    : workers_(workers),
      delta_(delta),
      table_(static_cast<size_t>(std::max(workers, 0))),
      pushes_(static_cast<size_t>(std::max(workers, 0)), 0) {
  if (workers < 1) throw std::invalid_argument("wsp: at least one worker");
  if (delta < 0) throw std::invalid_argument("wsp: the staleness bound must not be negative");
}

WspSelector::Choice WspSelector::choose(int r, int64_t now_ns) const {
  Choice c;
  const uint64_t mine = pushes_.at(static_cast<size_t>(r));
  std::vector<int> missing(static_cast<size_t>(workers_), 0);
  std::vector<int> candidates;  // computing workers the read would miss, by expected arrival
  std::vector<double> arrival(static_cast<size_t>(workers_), 0);
  bool initial_round = false;
  for (int l = 0; l < workers_; ++l) {
    const auto& row = table_[static_cast<size_t>(l)];
    if (l == r || pushes_[static_cast<size_t>(l)] >= mine) continue;
    missing[static_cast<size_t>(l)] = static_cast<int>(mine - pushes_[static_cast<size_t>(l)]);
    if (row.waiting) continue;
    candidates.push_back(l);
    initial_round |= row.iter_s < 0 || row.start_ns < 0;
    arrival[static_cast<size_t>(l)] =
        std::max(0.0, due_s(row) - static_cast<double>(now_ns) / kNsPerS);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int a, int b) { return arrival[a] < arrival[b]; });
  if (initial_round) {  // the synchronous first round that fills the ITTable
    c.wait_for = candidates.back();
    c.waiting_set = candidates;
    return c;
  }
  const double te = std::max(table_[static_cast<size_t>(r)].iter_s, kShortestIterationS);
  const auto staleness = [&](const std::vector<int>& m) {
    double sum = 0;
    for (int l = 0; l < workers_; ++l)
      if (l != r) sum += std::log1p(static_cast<double>(m[static_cast<size_t>(l)]));
    return workers_ > 1 ? sum / (workers_ - 1) : 0.0;
  };
  const auto within_bound = [&](const std::vector<int>& m) {
    return *std::max_element(m.begin(), m.end()) <= delta_;
  };
  double best = -staleness(missing);
  c.gains[-1] = best;
  c.bound_forced = !within_bound(missing);
  bool best_feasible = !c.bound_forced;
  std::vector<int> after = missing;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const int k = candidates[i];
    --after[static_cast<size_t>(k)];  // k and every earlier candidate arrive while r waits
    const double wait = arrival[static_cast<size_t>(k)];
    const double gain = -wait / te - staleness(after);
    c.gains[k] = gain;
    const bool feasible = within_bound(after);
    // A feasible choice beats an infeasible one; among alike, only a strictly higher gain
    // is worth a wait. When nothing keeps within delta, waiting for every candidate
    // misses the least, and the shards' own bound check covers the rest.
    const bool last = i + 1 == candidates.size();
    if ((feasible && (!best_feasible || gain > best)) || (!best_feasible && !feasible && last)) {
      best = gain;
      best_feasible = feasible;
      c.wait_for = k;
      c.wait_s = wait;
      c.waiting_set.assign(candidates.begin(), candidates.begin() + static_cast<long>(i) + 1);
    }
  }
  return c;
}

double WspSelector::due_s(const Row& row) const {
  const int64_t start =
      row.started ? row.start_ns : row.answered_ns + static_cast<int64_t>(row.read_s * kNsPerS);
  return static_cast<double>(start) / kNsPerS + std::max(row.iter_s, 0.0);
}

void WspSelector::started(int w, int64_t now_ns) {
  auto& row = table_.at(static_cast<size_t>(w));
  if (row.waiting || row.started) return;  // a late word of an iteration already ended
  row.start_ns = now_ns;
  row.started = true;
  if (row.answered_ns >= 0)
    row.read_s = std::max(0.0, static_cast<double>(now_ns - row.answered_ns) / kNsPerS);
}

std::vector<WspGrant> WspSelector::request(int w, uint64_t clock, double iter_s, int64_t now_ns) {
  if (w < 0 || w >= workers_) throw std::out_of_range("wsp: no worker " + std::to_string(w));
  auto& row = table_[static_cast<size_t>(w)];
  if (clock > 0) row.iter_s = std::max(iter_s, 0.0);
  row.waiting = true;
  pushes_[static_cast<size_t>(w)] = std::max(pushes_[static_cast<size_t>(w)], clock);
  std::vector<WspGrant> out;
  bool held = false;
  for (auto& s : sets_) {
    if (s.members.erase(w) > 0) {
      s.held.insert(w);
      held = true;
    }
  }
  if (held) {
    ++counters_.held;
    // The sets w completes are answered now, each member once.
    std::set<int> go;
    for (auto& s : sets_) {
      if (!s.members.empty() || s.held.empty()) continue;
      auto& wait = waits_[s.wait];
      wait.realized_s = static_cast<double>(now_ns - s.opened_ns) / kNsPerS;
      counters_.realized_wait_s += wait.realized_s;
      go.insert(s.held.begin(), s.held.end());
    }
    for (int g : go) grant(g, now_ns, out);
    return out;
  }
  if (clock == 0) {  // the first read: nothing to wait for
    grant(w, now_ns, out);
    return out;
  }
  const Choice c = choose(w, now_ns);
  ++counters_.choices;
  counters_.bound_forced += c.bound_forced ? 1 : 0;
  if (!c.wait_for) {
    grant(w, now_ns, out);
    return out;
  }
  ++counters_.waited;
  counters_.expected_wait_s += c.wait_s;
  waits_.push_back({w, clock, c.wait_s, 0, c.bound_forced});
  sets_.push_back({{c.waiting_set.begin(), c.waiting_set.end()}, {w}, waits_.size() - 1, now_ns});
  return out;
}

void WspSelector::grant(int w, int64_t now_ns, std::vector<WspGrant>& out) {
  auto& row = table_[static_cast<size_t>(w)];
  row.waiting = false;
  row.started = false;  // until the worker says when its parameters arrived
  row.answered_ns = now_ns;
  out.push_back({w, pushes_[static_cast<size_t>(w)]});
  for (auto& s : sets_) s.held.erase(w);
  std::erase_if(sets_, [](const WaitingSet& s) { return s.held.empty() && s.members.empty(); });
}

}  // namespace testbed
