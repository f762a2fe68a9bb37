// The disk-resident store's options (DRPS, Sec. 4-5), which every strategy with a store
// choice takes (bsp, ssp, async, drps): where the parameters live, the store's memory
// budget, the parameter index and the multi-objective partition; DRPS's parallel model
// besides. And their typed values as the run reads them.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

struct DiskStoreKnobs {
  int memory_budget_mb = 1;  // RocksStoreOptions' default, in MiB
  bool index = false;        // the parameter index (Sec. 4)
  int index_k = 50;          // its top k merged per round: the paper's k
  double index_prune = 0.9;  // the share of sampled batches a key must be read by to be indexed
  // Multi-objective partitioning (Sec. 5, Alg. 3): every block placed on a shard by its disk
  // and network costs, instead of contiguous ranges.
  bool partition = false;
};

// The store's table (bsp, ssp, async), and DRPS's: the store's plus --parallel, whose
// value is the run's consistency model (its field is "consistency").
std::vector<OptionSpec> disk_store_options();
std::vector<OptionSpec> drps_options();
// The store's options but `store` itself only take effect on disk: given for a store in
// memory, they are refused rather than left unused.
std::string check_disk_store_options(const nlohmann::json& values,
                                     const std::set<std::string>& given);

DiskStoreKnobs disk_store_knobs(const nlohmann::json& policy);

}  // namespace testbed
