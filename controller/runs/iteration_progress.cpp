#include "controller/runs/iteration_progress.h"

#include "agent/contracts/message_fields.h"

namespace testbed {

nlohmann::ordered_json to_json(const IterationProgress& p) {
  nlohmann::ordered_json j = {{"event", "iteration"},
                              {"iteration", p.iteration},
                              {"iterations", p.iterations},
                              {"strategy", p.strategy},
                              {"seconds", p.seconds}};
  if (p.samples_per_s) j["samples_per_s"] = *p.samples_per_s;
  if (p.policy_version) j["policy_version"] = *p.policy_version;
  if (p.aux_share) j["aux_share"] = *p.aux_share;
  if (p.fastest_clock) j["fastest_clock"] = *p.fastest_clock;
  if (p.loss) j["loss"] = *p.loss;
  return j;
}

std::optional<IterationProgress> iteration_progress_from_line(const std::string& line) {
  if (line.empty() || line.front() != '{') return std::nullopt;
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("event", "") != "iteration")
    return std::nullopt;
  try {
    const FieldReader r(j, "progress");
    r.refuse_unknown({"event", "iteration", "iterations", "strategy", "seconds", "samples_per_s",
                      "policy_version", "aux_share", "fastest_clock", "loss"});
    IterationProgress p;
    p.iteration = r.required<uint64_t>("iteration");
    p.iterations = r.required<uint64_t>("iterations");
    p.strategy = r.required<std::string>("strategy");
    p.seconds = r.required<double>("seconds");
    if (p.iteration > p.iterations || !(p.seconds >= 0)) return std::nullopt;
    const auto opt = [&](const char* field, auto& out) {
      using T = typename std::decay_t<decltype(out)>::value_type;
      if (j.contains(field) && !j[field].is_null()) out = r.required<T>(field);  // NaN: null
    };
    opt("samples_per_s", p.samples_per_s);
    opt("policy_version", p.policy_version);
    opt("aux_share", p.aux_share);
    opt("fastest_clock", p.fastest_clock);
    opt("loss", p.loss);
    return p;
  } catch (const ContractError&) {
    return std::nullopt;
  }
}

void write_json_line(std::ostream& out, const IterationProgress& p) {
  out << to_json(p).dump() << "\n" << std::flush;
}

}  // namespace testbed
