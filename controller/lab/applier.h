// Executes a plan against a Kernel. Steps already in effect are skipped, so applying the
// same plan twice changes nothing the second time. On any failure (or an interrupt) the
// steps this run changed are undone in reverse order before the error is rethrown, so a
// failed bring-up leaves the system as it found it.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/lab/plan.h"
#include "netns/kernel.h"

namespace testbed {

// Hooks for the caller: `up` records each namespace in the state file before it exists,
// so a controller killed mid-way leaves enough behind for `testbed clean`.
struct ApplyHooks {
  // Called before each step that is not yet in effect; may throw to fail the run.
  std::function<void(size_t index, const Step&)> before_step;
  std::function<void(const CreateNamespace&)> before_create_namespace;
  std::function<void(const CreateNamespace&, uint64_t inode)> after_create_namespace;
  std::function<void(const CreateNamespace&)> after_rollback_namespace;
};

struct ApplyResult {
  size_t changed = 0;
  size_t unchanged = 0;
  // Where the time went, by kind of step (step_op): steps changed and their seconds, the
  // hooks' work (state records) included.
  struct Timing {
    size_t steps = 0;
    double seconds = 0;
  };
  std::map<std::string, Timing> by_op;
};

class ApplyError : public std::runtime_error {
 public:
  ApplyError(const std::string& what, std::vector<std::string> rollback_errors)
      : std::runtime_error(what), rollback_errors_(std::move(rollback_errors)) {}
  // Undo steps that failed too; empty when the rollback was complete.
  const std::vector<std::string>& rollback_errors() const { return rollback_errors_; }

 private:
  std::vector<std::string> rollback_errors_;
};

// Undoes one step applied earlier by another run, knowing nothing of what it replaced: a
// shaping is removed, a sysctl left as it is, an interface made outside the testbed kept.
// `down` uses it inside namespaces a slice adopted, which are not the testbed's to delete.
void remove_step(Kernel& kernel, const Step& step);

// Whether every namespace `step` acts in is one of `adopted`: deleting a namespace will not
// undo such a step, so `up` records it for `down`. An interface made outside the testbed
// (ExpectInterface) is never the slice's to undo.
bool acts_only_in(const Step& step, const std::vector<std::string>& adopted);

class Applier {
 public:
  Applier(Kernel& kernel, ApplyHooks hooks = {}, const std::atomic<bool>* interrupted = nullptr)
      : kernel_(kernel), hooks_(std::move(hooks)), interrupted_(interrupted) {}

  // Throws ApplyError (after rolling back) when a step fails or the run is interrupted.
  ApplyResult apply(const Plan& plan);

 private:
  struct Done {
    size_t step;
    std::optional<RateShaping> previous_shaping;  // what a changed shaping replaced
    std::optional<std::string> previous_value;    // what a changed sysctl held
  };

  bool in_effect(const Step& step);
  // The step's routes the kernel does not have (all of them in a namespace this run made).
  std::vector<RouteSpec> missing_routes(const AddRoutes& step);
  void execute(const Step& step, Done& done);
  void undo(const Step& step, const Done& done);
  std::vector<std::string> rollback(const Plan& plan);

  Kernel& kernel_;
  ApplyHooks hooks_;
  const std::atomic<bool>* interrupted_;
  std::vector<Done> done_;
  std::set<std::string> fresh_namespaces_;  // created by this run: their contents are new
};

}  // namespace testbed
