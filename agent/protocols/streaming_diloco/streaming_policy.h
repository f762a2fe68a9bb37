// Streaming DiLoCo's own options (Douillard et al., 2025, "Streaming DiLoCo with
// overlapping communication", arXiv 2501.18512), as its setup command carries them in
// TrainingSetup::policy: DiLoCo's (H and both optimizers, diloco/diloco_policy.h) and its
// own three. One struct for
// both ends; the controller's option table (controller/training/streaming_diloco/) takes
// its defaults and ranges from here.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "agent/protocols/diloco/diloco_policy.h"

namespace testbed {

struct StreamingPolicy {
  static constexpr int kMostFragments = 64;
  // H (every fragment's), the outer and the inner optimizer, and the pseudo-gradients'
  // encoding on the wire (fp4: the paper's 4-bit floats, E3M0).
  DilocoPolicy diloco;
  // P: the model is cut into this many fragments, each synchronized every H inner steps,
  // fragment p H/P steps after fragment 0, so a sync happens every H/P steps and each moves
  // 1/P of the model: the paper's point, the same bytes at a lower peak rate.
  int fragments = 2;
  // tau: inner steps taken while a fragment's all-reduce is under way; its outer step is
  // applied after them. 0 blocks, as DiLoCo does. The paper overlaps 1 to 5 steps; below
  // H/P, so one fragment is in flight at a time.
  int overlap = 1;
  // alpha: a synchronized fragment's local copy becomes alpha x local + (1 - alpha) x the
  // shared fragment after its outer step (the local copy trained on for tau steps
  // meanwhile). 0 replaces it, as DiLoCo does; the paper's 0.5.
  double mixing = 0.5;
  bool operator==(const StreamingPolicy&) const = default;
};

nlohmann::json to_json(const StreamingPolicy& p);
// Throws ContractError (agent/contracts/message_fields.h) naming the field: DiLoCo's fields
// as diloco_policy_from_json checks them, and ours, a fragment count above H, an overlap
// of H/P or more.
StreamingPolicy streaming_policy_from_json(const nlohmann::json& j);

}  // namespace testbed
