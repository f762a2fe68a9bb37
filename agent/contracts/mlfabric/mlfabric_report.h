// MLfabric's own sections of a parameter-server node's final "stats" (ps_node_report.h holds
// the core's): what a scheduled worker pushed, summed and forwarded; what a server or its
// replica applied in the scheduler's order, sent back, logged for the divergence check and
// checkpointed; and what a failover cost. The agent's MlfabricPolicy
// (agent/protocols/mlfabric/) writes them, the controller's MlfabricRun
// (controller/runs/mlfabric/) and its check of agents' replies read them.
//
// The sections sit where they always have, beside the core's fields and the van's counters
// in one object: a worker's at the top ("scheduled", "aggregator", "distributor",
// "failover"), a shard's inside its role's section ("server" or "replica"). The reader
// reads these and leaves the rest alone.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testbed {

// A scheduled worker's (MLfabric-S and -A): its own pushes, its aggregator's sums and its
// distributor's copies of the model.
struct MlfabricWorkerSections {
  struct Scheduled {
    uint64_t pushed = 0, dropped = 0, replicated = 0;  // updates: sent, dropped, to the replica
  } scheduled;
  struct Aggregator {
    uint64_t sums = 0, updates = 0, waiting = 0;  // sums sent, updates summed, still waiting
  } aggregator;
  struct Distributor {
    uint64_t forwarded = 0, kept = 0;  // models passed on, models kept for itself
  } distributor;
};

// What the standby loaded when it was promoted from a checkpoint (Sec. 7.3).
struct CheckpointLoaded {
  bool found = false;    // the file was there
  uint64_t applied = 0;  // the places it held
  double load_s = 0;
};

// A node's view of a failover: every node counts what the dead order cost it; the promoted
// replica also what it skipped.
struct MlfabricFailoverSection {
  uint64_t dead_server = 0;
  uint64_t first_seq = 0;  // the new order's first place
  uint64_t stale_messages_dropped = 0, updates_announced_again = 0, pulls_asked_again = 0;
  struct Promoted {
    uint64_t places_lost = 0, early_places_discarded = 0;
    std::optional<CheckpointLoaded> checkpoint;
  };
  std::optional<Promoted> promoted;
};

// (places applied after the apply, when in monotonic ns), one record per apply: the
// divergence check's input.
using ApplyLog = std::vector<std::pair<uint64_t, int64_t>>;

// A server's or replica's, inside its role's section.
struct MlfabricShardSections {
  struct Ordered {  // the scheduler's order, applied (ordered_pushes.h)
    uint64_t applied = 0, arrived_early = 0, waiting = 0, messages = 0, bytes = 0;
  };
  struct ModelsSent {  // MLfabric-S's distribution: answered itself, or through distributors
    uint64_t to_workers = 0, to_distributors = 0;
  };
  struct Checkpoint {  // what writing checkpoints cost the server
    uint64_t every = 0, writes = 0, bytes = 0;
    double seconds = 0, max_s = 0;
    uint64_t last_applied = 0;  // the places the last one holds
  };
  std::optional<Ordered> ordered;
  std::optional<ModelsSent> models_sent;
  std::optional<ApplyLog> apply_log;
  std::optional<Checkpoint> checkpoint;
  std::vector<int64_t> clock_applied_ns;  // a synchronous server's: when each clock took effect
};

struct MlfabricReport {
  std::optional<MlfabricWorkerSections> worker;
  std::optional<MlfabricFailoverSection> failover;
  std::string role;  // the shard's role ("server" or "replica"), when it has sections
  std::optional<MlfabricShardSections> shard;
};

void to_json(nlohmann::json& j, const CheckpointLoaded& c);
void to_json(nlohmann::json& j, const MlfabricShardSections::Checkpoint& c);

// Adds a node's sections to `report`, and a shard's to `shard` (its role's section).
void write_mlfabric_node_sections(nlohmann::json& report,
                                  const std::optional<MlfabricWorkerSections>& worker,
                                  const std::optional<MlfabricFailoverSection>& failover);
void write_mlfabric_shard_sections(nlohmann::json& shard, const MlfabricShardSections& s);
// The apply log alone, from the writer's own log: it grows by one record per apply, so the
// policy writes it in place rather than copy it into the struct at every report.
void write_apply_log(nlohmann::json& shard, const ApplyLog& log);
// Reads MLfabric's sections of a final "stats" (all empty in another system's); throws
// ContractError naming a field that is missing, of the wrong type or out of range.
MlfabricReport mlfabric_report_from(const nlohmann::json& report);

}  // namespace testbed
