#include "controller/launch/rank_membership.h"

namespace testbed {

bool RankMembership::starts_outside(const std::optional<MembershipRequest>& latest) {
  if (latest) last_seen_ = latest->at_unix_s;
  outside_ = latest && latest->event == "leave";
  return outside_;
}

RankMembership::Action RankMembership::on_request(const std::optional<MembershipRequest>& latest,
                                                  bool running, bool ending) {
  if (!latest || (last_seen_ && *last_seen_ == latest->at_unix_s)) return Action::kNone;
  last_seen_ = latest->at_unix_s;
  if (latest->event == "leave") {
    join_pending_ = false;  // a leave after a join not yet taken cancels it
    if (!running || draining_) return Action::kNone;
    draining_ = true;
    return Action::kDrain;
  }
  if (latest->event != "join") return Action::kNone;
  if (draining_) {
    join_pending_ = true;  // it comes back once it has left
    return Action::kNone;
  }
  if (!outside_ || running || ending) return Action::kNone;
  outside_ = false;
  ++joins_;
  return Action::kStart;
}

bool RankMembership::ended(bool ending, bool& start_again) {
  start_again = false;
  if (!draining_) return false;
  draining_ = false;
  ++leaves_;
  if (join_pending_ && !ending) {
    join_pending_ = false;
    ++joins_;
    start_again = true;
    return true;
  }
  join_pending_ = false;
  outside_ = true;
  return true;
}

}  // namespace testbed
