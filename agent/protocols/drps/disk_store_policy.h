// DRPS's shards on disk, as the parameter server's policy: this node's shard keeps its
// values in a RocksDB store of its own (stored_shard_values.h), fresh for every run (a run
// starts from the job's initial values), with the PIBs it holds as blocks, and reports the
// store's counters beside the shard's. The shard's logic is the core's, unchanged.
#pragma once

#include <memory>
#include <utility>

#include "agent/contracts/drps/store_setup.h"

#include "agent/protocols/drps/stored_shard_values.h"
#include "agent/protocols/ps/ps_policy.h"

namespace testbed {

class DiskStorePolicy : public PsPolicy {
 public:
  DiskStorePolicy(StoreSetup store, PsCore& core) : store_(std::move(store)), core_(core) {}
  std::unique_ptr<ShardValues> shard_values(int shard, KeyRange range) override;
  void stats(nlohmann::json& node, nlohmann::json* shard) const override;

 private:
  StoreSetup store_;
  PsCore& core_;
  StoredShardValues* stored_ = nullptr;  // the shard's values, owned by the shard
  StoreCounters loaded_;                 // the store's counters once the model was loaded
};

// The registry's maker: a DiskStorePolicy when the setup names a store, else none.
std::unique_ptr<PsPolicy> make_disk_store_policy(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
