// What a parameter-server node reports when asked for its statistics: its bytes, as a
// worker what its pulls asked of which shards, and as a shard its updates, staleness,
// and its values (for the exactness check); each policy what it adds (DRPS's store and WSP
// master).
#include "agent/protocols/ps/ps_protocol.h"
#include "agent/runtime/van_counters.h"

namespace testbed {
namespace {

// A shard reports its values with its statistics (for the exactness check against the
// single-process reference) only up to this many: beyond, JSON would dwarf the run.
constexpr uint32_t kReportValuesUpTo = 200000;

}  // namespace

nlohmann::json PsProtocol::stats() const {
  nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
  s["relayed_bytes"] = transfer_ ? transfer_->relayed_bytes() : 0;
  if (job_) s["pulled"] = {{"local", pulled_local_}, {"remote", pulled_remote_}};
  if (job_) s["sent_dense"] = {{"pushes", densified_.pushes}, {"pulls", densified_.pulls}};
  if (!shard_) {
    for (const auto& policy : policies_) policy->stats(s, nullptr);
    return s;
  }
  const char* role = "server";  // or the name a policy gives its copy (MLfabric's replica)
  for (const auto& policy : policies_)
    if (const char* own = policy->shard_role()) role = own;
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [staleness, n] : shard_->staleness_histogram())
    histogram[std::to_string(staleness)] = n;
  s[role] = {{"shard", my_shard_},         {"begin", shard_->range().begin},
             {"end", shard_->range().end}, {"updates", shard_->updates_applied()},
             {"staleness", histogram},     {"applied_ns", shard_->applied_ns()}};
  // The policies' figures first: a store's reading of the values reads every block.
  for (const auto& policy : policies_) policy->stats(s, &s[role]);
  if (shard_->range().size() <= kReportValuesUpTo) s[role]["values"] = shard_->values();
  return s;
}

}  // namespace testbed
