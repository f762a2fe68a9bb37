#include "agent/contracts/diloco/diloco_report.h"

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"

namespace testbed {

namespace {

constexpr const char* kSection = "diloco";  // the section's name in the report

}  // namespace

void write_diloco_section(nlohmann::json& report, const DilocoSection& s) {
  report[kSection] = {{"outer_steps", s.outer_steps}, {"dropped", s.dropped}};
}

std::optional<DilocoSection> diloco_section_from(const nlohmann::json& report) {
  if (!report.contains(kSection)) return std::nullopt;
  const FieldReader d = FieldReader::named(report, kStatsEvent).object(kSection);
  d.refuse_unknown({"outer_steps", "dropped"});
  return DilocoSection{d.whole("outer_steps"), d.whole("dropped")};
}

}  // namespace testbed
