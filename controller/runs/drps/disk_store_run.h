// DRPS's disk-resident servers in a parameter-server session, as the session's policy
// (runs/ps/ps_run_policy.h): each shard's store, the parameter index (Sec. 4) and the
// partition (Sec. 5) computed before the agents start, and what they are reported as.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/store/pib_index.h"
#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class DiskStoreRun : public PsRunPolicy {
 public:
  explicit DiskStoreRun(PsRun& run) : run_(run), o_(run.options()) {}
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  void summary(nlohmann::json& s) const override;
  const KeyMap* key_map() const override { return partition_map_ ? &*partition_map_ : nullptr; }

 private:
  // DRPS's partition (Alg. 3) of the job's blocks over the shards, written where the agents
  // read it (a byte per key: too large for the setup message); returns the file's path.
  std::string partition(const JobConfig& job, const std::vector<std::vector<uint32_t>>& pibs,
                        const IndexOptions& disk);

  PsRun& run_;
  const TrainOptions& o_;
  nlohmann::json index_;                 // the parameter index, when --index on: its figures
  nlohmann::json partition_;             // the partition, when --partition on: its figures
  std::optional<KeyMap> partition_map_;  // and the shards' keys it gives
};

// The list's maker: a DiskStoreRun when the run keeps its shards on disk, else none.
std::unique_ptr<PsRunPolicy> make_disk_store_run(PsRun& run);

// DRPS's WSP in a session: the job's master's choices and waits, read from its node's
// stats (agent/protocols/drps/wsp_policy.h) into the summary's "wsp".
class WspRun : public PsRunPolicy {
 public:
  explicit WspRun(PsRun& run) : run_(run) {}
  void summary(nlohmann::json& s) const override;

 private:
  PsRun& run_;
};

// The list's maker: a WspRun under the WSP consistency model, else none.
std::unique_ptr<PsRunPolicy> make_wsp_run(PsRun& run);

}  // namespace testbed
