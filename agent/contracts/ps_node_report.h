// What the parameter-server core of a node reports in its final "stats": the bytes it
// relayed, as a worker what its pulls asked of which shards and how many of its messages
// went dense, and as a shard what it applied (for the staleness figures, the check against
// the single-process reference and the timing of each update). The agent's PsProtocol
// (agent/protocols/ps/) writes it, the controller's PsSession (controller/runs/ps/) and
// its check of agents' replies read it.
//
// The report is one object shared with the van's counters (node_replies.h) and with the
// policies' own sections (MLfabric's "ordered", DRPS's "store", "wsp_master"...), which
// their own run policies read: this contract reads its fields and leaves the others alone.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// The shard a node served.
struct ShardReport {
  std::string role = "server";  // or the name a policy gives its copy ("replica")
  uint64_t shard = 0;
  uint64_t begin = 0, end = 0;                   // its keys, [begin, end)
  uint64_t updates = 0;                          // updates applied
  std::map<uint64_t, uint64_t> staleness;        // staleness -> updates applied with it
  std::vector<std::vector<int64_t>> applied_ns;  // [worker][clock]: when it took effect
  std::optional<std::vector<float>> values;      // its values, when small enough to send
};

struct PsNodeReport {
  uint64_t relayed_bytes = 0;  // bytes this node passed on for others (APSP's relays)
  // As a worker: the parameters its pulls asked of its own node and of others (DRPS's
  // network figure), and its pushes and pulls sent dense (key_map.h's rule).
  struct Pulled {
    uint64_t local = 0, remote = 0;
  };
  struct Dense {
    uint64_t pushes = 0, pulls = 0;
  };
  std::optional<Pulled> pulled;
  std::optional<Dense> sent_dense;
  std::optional<ShardReport> shard;
};

// The roles a shard's section may be filed under (the core's, and MLfabric's replica).
inline const std::vector<std::string>& shard_roles() {
  static const std::vector<std::string> roles = {"server", "replica"};
  return roles;
}

// Adds the report's fields to `report` (a "stats" event that has the van's counters).
void write_ps_node_report(nlohmann::json& report, const PsNodeReport& r);
// Whether `report` is a parameter-server node's (the core always writes relayed_bytes).
bool is_ps_node_report(const nlohmann::json& report);
// Reads this contract's fields of `report`; throws ContractError naming a field that is
// missing, of the wrong type or out of range (values outside float's range, or not one per
// key of the shard).
PsNodeReport ps_node_report_from(const nlohmann::json& report);

}  // namespace testbed
