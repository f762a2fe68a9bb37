#include "agent/contracts/drps/store_setup.h"

#include "agent/contracts/message_fields.h"

namespace testbed {

nlohmann::json to_json(const StoreSetup& s) {
  nlohmann::json j = {{"dir", s.dir},
                      {"memory_budget_bytes", s.memory_budget_bytes},
                      {"direct_reads", s.direct_reads}};
  if (!s.pibs.empty()) j["pibs"] = s.pibs;
  return j;
}

StoreSetup store_setup_from(const FieldReader& r) {
  r.refuse_unknown({"dir", "memory_budget_bytes", "direct_reads", "pibs"});
  StoreSetup s;
  s.dir = r.required<std::string>("dir");
  if (s.dir.empty() || s.dir.front() != '/') throw r.error("dir", "is not an absolute path");
  s.memory_budget_bytes = r.required<uint64_t>("memory_budget_bytes");
  s.direct_reads = r.optional<bool>("direct_reads", s.direct_reads);
  s.pibs = r.optional<std::vector<std::vector<uint32_t>>>("pibs", {});
  for (const auto& pib : s.pibs)
    if (pib.empty()) throw r.error("pibs", "holds an empty block");
  return s;
}

}  // namespace testbed
