// What a parameter-server node reports when asked for its statistics: its bytes, as a
// worker what its pulls asked of which shards, and as a shard its updates, staleness,
// store counters, and its values (for the exactness check); WSP's master its choices.
#include "agent/protocols/ps/ps_protocol.h"

namespace testbed {
namespace {

// A shard reports its values with its statistics (for the exactness check against the
// single-process reference) only up to this many: beyond, JSON would dwarf the run.
constexpr uint32_t kReportValuesUpTo = 200000;

}  // namespace

nlohmann::json PsProtocol::stats() const {
  nlohmann::json s = link_.van().byte_counters();
  s["event"] = "stats";
  s["relayed_bytes"] = transfer_ ? transfer_->relayed_bytes() : 0;
  if (job_) s["pulled"] = {{"local", pulled_local_}, {"remote", pulled_remote_}};
  if (job_) s["sent_dense"] = {{"pushes", densified_.pushes}, {"pulls", densified_.pulls}};
  if (scheduled_ && job_) {
    s["scheduled"] = {{"pushed", pushes_sent_}, {"dropped", dropped_}, {"replicated", replicated_}};
    s["aggregator"] = {
        {"sums", sums_->sums()}, {"updates", sums_->updates()}, {"waiting", sums_->waiting()}};
    s["distributor"] = {{"forwarded", forwarded_}, {"kept", kept_}};
  }
  if (wsp_) s["wsp_master"] = wsp_stats();
  if (failover_.dead_server >= 0) s["failover"] = failover_stats();
  if (shard_) {
    // MLfabric's replica reports its copy apart: the run's server figures are the server's.
    const char* role = replica_ >= 0 && self_ == replica_ ? "replica" : "server";
    nlohmann::json histogram = nlohmann::json::object();
    for (const auto& [staleness, n] : shard_->staleness_histogram())
      histogram[std::to_string(staleness)] = n;
    s[role] = {{"shard", my_shard_},         {"begin", shard_->range().begin},
               {"end", shard_->range().end}, {"updates", shard_->updates_applied()},
               {"staleness", histogram},     {"applied_ns", shard_->applied_ns()}};
    // The store's figures first: reading the values for the report reads every block.
    if (stored_) {
      const StoreCounters c = stored_->counters();
      s[role]["store"] = {{"blocks", stored_->blocks()},
                          {"block_reads", c.block_reads - loaded_.block_reads},
                          {"block_writes", c.block_writes - loaded_.block_writes},
                          {"disk_reads", c.disk_reads - loaded_.disk_reads},
                          {"disk_read_bytes", c.disk_read_bytes - loaded_.disk_read_bytes},
                          {"disk_write_bytes", c.disk_write_bytes - loaded_.disk_write_bytes}};
    }
    if (scheduled_)
      s[role]["ordered"] = {{"applied", ordered_.applied()},
                            {"arrived_early", ordered_.early()},
                            {"waiting", ordered_.waiting()},
                            {"messages", ordered_messages_},
                            {"bytes", ordered_bytes_}};
    if (scheduled_)
      s[role]["models_sent"] = {{"to_workers", answered_directly_},
                                {"to_distributors", to_distributors_}};
    if (replica_ >= 0) s[role]["apply_log"] = apply_log_;
    if (checkpoint_cost_.writes > 0)
      s[role]["checkpoint"] = {
          {"every", checkpoint_.every},      {"writes", checkpoint_cost_.writes},
          {"bytes", checkpoint_cost_.bytes}, {"seconds", checkpoint_cost_.seconds},
          {"max_s", checkpoint_cost_.max_s}, {"last_applied", checkpointed_}};
    if (scheduled_ && !clock_applied_ns_.empty()) s[role]["clock_applied_ns"] = clock_applied_ns_;
    if (shard_->range().size() <= kReportValuesUpTo) s[role]["values"] = shard_->values();
  }
  return s;
}

}  // namespace testbed
