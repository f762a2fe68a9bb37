// The messages of NetStorm and the tree baselines (agent/protocols/tree/) between the
// controller's session (controller/runs/tree/train_session.*) and each agent: the setup,
// the probe of the links and its answer, an iteration's command and its report. One struct
// each, both ends; a field missing, mistyped, out of range or unknown is refused with its
// name (a ContractError). The tree's sync policy travels as its own JSON, read by its own
// reader (agent/protocols/tree/sync_policy_json.h).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/contracts/node_replies.h"
#include "agent/contracts/van_setup.h"

namespace testbed {

// The logistic-regression job whose result a single process can check (`--job logreg`).
struct TreeLogRegJob {
  int nodes = 0;
  int features = 0;
  int samples_per_node = 0;
  double learning_rate = 0;
  bool operator==(const TreeLogRegJob&) const = default;
};

struct TreeSetup {
  VanSetup van;  // the agent's runtime builds the van from it, for every protocol

  uint64_t chunk_elements = 0;  // > 0
  uint64_t model_elements = 0;
  uint64_t seed = 0;
  std::optional<TreeLogRegJob> logreg;  // none: a synthetic gradient of model_elements
  std::set<int> neighbors;              // the node's physical in-neighbours
  // A chunk of at least this many bytes from a neighbour times its link; 0: no passive
  // measurement (the strategy is not network-aware).
  uint64_t probe_bytes = 0;
};

// Probe the links: send `count` probes of `bytes` to each of `to`, time those from `from`.
struct ProbeLinks {
  static constexpr const char* kCommand = "probe";
  std::vector<int> to, from;
  uint64_t bytes = 0;
  uint32_t count = 0;
};

// The answer: each in-neighbour's measured rate (Mbit/s), by its node index.
struct LinksProbed {
  static constexpr const char* kEvent = "probed";
  std::map<size_t, double> mbit;
};

struct IterateCommand {
  static constexpr const char* kCommand = "iterate";
  uint64_t iteration = 0;
  uint64_t compute_ms = 0;
  nlohmann::json policy;  // the tree's sync policy, read by its own reader
};

// What a receiver timed of one neighbour's large chunks in an iteration (the samples the
// controller's passive awareness learns from).
struct LinkSample {
  double bytes = 0;
  double seconds = 0;
  uint64_t count = 0;
};

// Chunks delivered to this node, from their origin's send, and the seconds they took.
struct Deliveries {
  uint64_t count = 0;
  double seconds = 0;
};

struct IterationDone {
  static constexpr const char* kEvent = "done";
  uint64_t iteration = 0;
  double seconds = 0;
  double checksum = 0;  // the model's sum: every node must agree
  // The logreg job's loss and weights; none for the synthetic gradient.
  std::optional<double> loss;
  std::vector<float> weights;
  std::map<size_t, LinkSample> link_samples;  // by the sending neighbour's index
  uint64_t chunks_sent = 0, aux_chunks_sent = 0, chunks_forwarded = 0;
  Deliveries primary, aux;  // by route: the tree's own, or an auxiliary path
  VanCounters counters;
};

nlohmann::json to_json(const TreeSetup& s);
nlohmann::json to_json(const ProbeLinks& c);
nlohmann::json to_json(const LinksProbed& e);
nlohmann::json to_json(const IterateCommand& c);
nlohmann::json to_json(const IterationDone& e);

// Each throws ContractError naming the field. Node indices are checked against the lab's
// `nodes` (the setup's: its endpoints); `max_iteration` bounds an iteration.
TreeSetup tree_setup_from_json(const nlohmann::json& j);
ProbeLinks probe_links_from_json(const nlohmann::json& j, size_t nodes);
LinksProbed links_probed_from_json(const nlohmann::json& j, size_t nodes);
IterateCommand iterate_command_from_json(const nlohmann::json& j);
IterationDone iteration_done_from_json(const nlohmann::json& j, size_t nodes,
                                       uint64_t max_iteration);

// The check of a reply whose "event" is probed or done: throws ContractError when it is
// malformed; any other event is left to its own reader.
void check_tree_reply(const nlohmann::json& j, size_t nodes, uint64_t max_iteration);

}  // namespace testbed
