// What a launched rank does about its node's leave and join requests (`testbed node
// leave|join`, a schedule's, a churn model's), as an elastic job under a provider's churn
// sees them: a leave is SIGTERM to the rank (drained: the job finishes what it owes, as a
// preempted cloud machine is told, and exits), after which its node is outside; a join runs
// the rank again, with TESTBED_RANK_JOINED=1, for the job to take it in (the example:
// examples/pytorch-diloco-elastic). A node whose latest request before the launch is a
// leave starts outside. A rank that ends while draining has left, whatever its status: not
// a failure. Pure: the runner (job_runner.h) does what it says.
#pragma once

#include <optional>
#include <string>

namespace testbed {

// A node's latest leave or join request and when it was made (its key: two requests are
// told apart by their time).
struct MembershipRequest {
  std::string event;  // "leave" or "join"
  double at_unix_s = 0;
};

class RankMembership {
 public:
  enum class Action { kNone, kDrain, kStart };

  // At the launch, the node's latest request: whether the rank starts outside.
  bool starts_outside(const std::optional<MembershipRequest>& latest);
  // The node's latest request now. `running`: the rank's process runs. `ending`: the job is
  // ending (a rank completed, or it is being stopped), when a join is too late to start.
  Action on_request(const std::optional<MembershipRequest>& latest, bool running, bool ending);
  // The rank's process ended. True when it was draining (it left); then `start_again` says
  // whether a join came meanwhile and it runs again at once.
  bool ended(bool ending, bool& start_again);

  bool draining() const { return draining_; }
  bool outside() const { return outside_; }
  int leaves() const { return leaves_; }
  int joins() const { return joins_; }

 private:
  std::optional<double> last_seen_;  // the latest request's time, once handled
  bool draining_ = false;            // told to leave, still running
  bool outside_ = false;             // left (or outside from the start), not running
  bool join_pending_ = false;        // told to join while draining
  int leaves_ = 0, joins_ = 0;
};

}  // namespace testbed
