#include "agent/contracts/model_report.h"

#include "agent/contracts/message_fields.h"

namespace testbed {

void write_ring_model(nlohmann::json& report, const std::vector<float>& values) {
  report["allreduce"] = {{"values", values}};  // a NaN is written as null
}

std::optional<std::vector<float>> ring_model_from(const nlohmann::json& report) {
  if (!report.is_object() || !report.contains("allreduce")) return std::nullopt;
  const FieldReader ring = FieldReader(report, "stats").object("allreduce");
  ring.refuse_unknown({"values"});
  return ring.floats("values");
}

}  // namespace testbed
