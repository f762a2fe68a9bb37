// MLfabric's scheduler plans when each message reaches the server (an update sent directly,
// or an aggregator's sum); the server reports when it did. The difference is what the plan
// did not see: TCP's ramp and losses at the shaper, a rate change the monitor had not yet
// reported (t_lag), a transfer that overran the one planned behind it. Kept per message,
// so every run shows how far its schedule was from its network. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace testbed {

class ArrivalLog {
 public:
  // A message whose report comes this long after its planned end is late. The report
  // crosses the control socket and the agent's event loop (a few milliseconds under load),
  // so a smaller gap says nothing of the network.
  static constexpr double kLateS = 0.010;

  // `sender`: the worker whose node sends the message (the update's, or the aggregator's).
  void planned(uint64_t seq, double end_s, int sender = -1) { planned_[seq] = {end_s, sender}; }
  // The server has the message of place `seq`; one never planned (or reported twice) is
  // counted apart and changes nothing else.
  void arrived(uint64_t seq, double now_s) {
    const auto p = planned_.find(seq);
    if (p == planned_.end()) {
      ++unplanned_;
      return;
    }
    lateness_.push_back(now_s - p->second.end_s);
    planned_.erase(p);
  }
  // The senders of the messages past their planned end and not yet reported.
  std::vector<int> overdue(double now_s) const {
    std::vector<int> out;
    for (const auto& [seq, p] : planned_)
      if (p.end_s < now_s && p.sender >= 0) out.push_back(p.sender);
    return out;
  }

  nlohmann::json stats() const {
    std::vector<double> l = lateness_;
    std::sort(l.begin(), l.end());
    const auto at = [&](double q) {
      return l.empty() ? 0.0 : l[std::min(l.size() - 1, static_cast<size_t>(q * l.size()))];
    };
    const auto late = static_cast<uint64_t>(l.end() - std::upper_bound(l.begin(), l.end(), kLateS));
    return {{"reported", l.size()},
            {"late", late},
            {"late_share", l.empty() ? 0.0 : static_cast<double>(late) / l.size()},
            {"lateness_s", {{"p50", at(0.5)}, {"p90", at(0.9)}, {"max", l.empty() ? 0 : l.back()}}},
            {"unplanned", unplanned_},
            {"not_reported", planned_.size()}};
  }

 private:
  struct Planned {
    double end_s;
    int sender;
  };
  std::map<uint64_t, Planned> planned_;  // by place, until reported
  std::vector<double> lateness_;         // reported - planned, s (negative: early)
  uint64_t unplanned_ = 0;
};

}  // namespace testbed
