#include "agent/protocols/diloco/diloco_policy.h"

#include "agent/contracts/message_fields.h"
#include "agent/transport/value_codec.h"

namespace testbed {

namespace {

std::string codec_list() {
  std::string s;
  const auto& names = value_codec_names();
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

}  // namespace

nlohmann::json to_json(const DilocoPolicy& p) {
  nlohmann::json j = {{"inner_steps", p.inner_steps},
                      {"outer_lr", p.outer_lr},
                      {"outer_momentum", p.outer_momentum},
                      {"inner", p.inner},
                      {"inner_lr", p.inner_lr},
                      {"weight_decay", p.weight_decay},
                      {"wire", p.wire},
                      {"elastic", p.elastic ? "on" : "off"}};
  if (!p.away.empty()) j["away"] = p.away;
  return j;
}

DilocoPolicy diloco_policy_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw ContractError("setup.policy: is not an object");
  const FieldReader r(j, "setup.policy");
  r.refuse_unknown({"inner_steps", "outer_lr", "outer_momentum", "inner", "inner_lr",
                    "weight_decay", "wire", "elastic", "away"});
  DilocoPolicy p;
  p.inner_steps =
      r.in_range("inner_steps", r.required<int>("inner_steps"), 1, DilocoPolicy::kMostInnerSteps);
  p.outer_lr =
      r.in_range("outer_lr", r.required<double>("outer_lr"), 0.0, DilocoPolicy::kMostOuterLr);
  p.outer_momentum = r.in_range("outer_momentum", r.required<double>("outer_momentum"), 0.0,
                                DilocoPolicy::kMostMomentum);
  p.inner = r.required<std::string>("inner");
  if (p.inner != "sgd" && p.inner != "adamw")
    throw r.error("inner", "is '" + p.inner + "', not sgd or adamw");
  p.inner_lr =
      r.in_range("inner_lr", r.required<double>("inner_lr"), 0.0, DilocoPolicy::kMostInnerLr);
  p.weight_decay = r.in_range("weight_decay", r.required<double>("weight_decay"), 0.0,
                              DilocoPolicy::kMostWeightDecay);
  // Absent: off (a setup written before elastic runs).
  const auto elastic = r.optional<std::string>("elastic", "off");
  if (elastic != "on" && elastic != "off")
    throw r.error("elastic", "is '" + elastic + "', not on or off");
  p.elastic = elastic == "on";
  if (j.contains("away")) {
    const auto away = r.required<nlohmann::json>("away");
    if (!away.is_array()) throw r.error("away", "is not a list of nodes");
    for (const auto& n : away) p.away.push_back(static_cast<int>(r.whole_in("away", n, 1u << 20)));
  }
  p.wire = r.required<std::string>("wire");
  if (!find_value_codec(p.wire)) throw r.error("wire", "is '" + p.wire + "', not " + codec_list());
  return p;
}

}  // namespace testbed
