// What a parameter-server node reports when asked for its statistics: its bytes, as a
// worker what its pulls asked of which shards, and as a shard its updates, staleness,
// and its values (for the exactness check); each policy what it adds (DRPS's store and WSP
// master).
#include "agent/contracts/model_report.h"
#include "agent/contracts/ps_node_report.h"
#include "agent/protocols/ps/ps_protocol.h"
#include "agent/runtime/van_counters.h"

namespace testbed {

nlohmann::json PsProtocol::stats() const {
  nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
  PsNodeReport r;
  r.relayed_bytes = transfer_ ? transfer_->relayed_bytes() : 0;
  if (job_) {
    r.pulled = PsNodeReport::Pulled{pulled_local_, pulled_remote_};
    r.sent_dense = PsNodeReport::Dense{densified_.pushes, densified_.pulls};
  }
  if (!shard_) {
    write_ps_node_report(s, r);
    for (const auto& policy : policies_) policy->stats(s, nullptr);
    return s;
  }
  ShardReport& shard = r.shard.emplace();
  // "server", or the name a policy gives its copy (MLfabric's replica).
  for (const auto& policy : policies_)
    if (const char* own = policy->shard_role()) shard.role = own;
  shard.shard = static_cast<uint64_t>(my_shard_);
  shard.begin = shard_->range().begin;
  shard.end = shard_->range().end;
  shard.updates = shard_->updates_applied();
  shard.staleness = shard_->staleness_histogram();
  shard.applied_ns = shard_->applied_ns();
  write_ps_node_report(s, r);
  // The policies' figures first: a store's reading of the values reads every block.
  for (const auto& policy : policies_) policy->stats(s, &s[shard.role]);
  // The contract's values (ShardReport::values), written after the policies' figures.
  if (shard_->range().size() <= kReportValuesUpTo) s[shard.role]["values"] = shard_->values();
  return s;
}

}  // namespace testbed
