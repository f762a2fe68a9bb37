#include "agent/protocols/streaming_diloco/streaming_policy.h"

#include "agent/contracts/message_fields.h"
#include "agent/protocols/streaming_diloco/fragment_schedule.h"

namespace testbed {

namespace {

// Streaming DiLoCo's own fields; every other field is DiLoCo's.
const std::vector<std::string>& streaming_fields() {
  static const std::vector<std::string> kFields = {"fragments", "overlap", "mixing"};
  return kFields;
}

}  // namespace

nlohmann::json to_json(const StreamingPolicy& p) {
  nlohmann::json j = to_json(p.diloco);
  j["fragments"] = p.fragments;
  j["overlap"] = p.overlap;
  j["mixing"] = p.mixing;
  return j;
}

StreamingPolicy streaming_policy_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ContractError("setup.policy: is not an object");
  nlohmann::json diloco = j;
  for (const auto& f : streaming_fields()) diloco.erase(f);
  StreamingPolicy p;
  p.diloco = diloco_policy_from_json(diloco);
  const FieldReader r(j, "setup.policy");
  p.fragments = r.in_range("fragments", r.required<int>("fragments"), 1,
                           std::min(StreamingPolicy::kMostFragments, p.diloco.inner_steps));
  const int gap = FragmentSchedule(p.diloco.inner_steps, p.fragments).least_gap();
  p.overlap = r.in_range("overlap", r.required<int>("overlap"), 0, gap - 1);
  p.mixing = r.in_range("mixing", r.required<double>("mixing"), 0.0, 1.0);
  return p;
}

}  // namespace testbed
