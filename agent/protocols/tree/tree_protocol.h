// Synchronous aggregation over trees (PS star, BKT, MST, FAPT, NetStorm), driven by the
// controller one iteration at a time. Commands (agent/contracts/tree_messages.h):
//   setup   TreeSetup       -> ready
//   probe   ProbeLinks      -> probed (LinksProbed)
//   iterate IterateCommand  -> done (IterationDone)
// It measures links passively (NetStorm Sec. V) from the chunks that cross them.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "agent/contracts/tree_messages.h"
#include "agent/jobs/logistic_regression.h"
#include "agent/protocols/tree/path_scheduler.h"
#include "agent/protocols/tree/tree_aggregator.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class TreeProtocol : public Protocol {
 public:
  explicit TreeProtocol(AgentLink& link);
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  void probe(const nlohmann::json& cmd);
  void begin_iteration(const nlohmann::json& cmd);
  void start_sync();
  void finish_iteration();
  void dispatch(const ChunkMessage& m);
  void measure(const Received& r);
  std::map<size_t, LinkSample> take_samples();

  AgentLink& link_;
  int self_;
  std::unique_ptr<TreeAggregator> aggregator_;
  PathScheduler paths_;
  size_t nodes_ = 0;  // the lab's, from the setup's endpoints
  uint32_t chunk_elements_ = 0;
  size_t model_elements_ = 0;
  uint64_t seed_ = 0;

  // The iteration under way: computing until compute_end_, then synchronizing.
  enum class Phase { kIdle, kComputing, kSyncing } phase_ = Phase::kIdle;
  uint64_t iteration_ = 0;
  SyncPolicy policy_;
  Clock::time_point started_, compute_end_;

  // Counters over the node's life, reported with every iteration.
  uint64_t chunks_sent_ = 0, aux_chunks_sent_ = 0, chunks_forwarded_ = 0;

  // Chunks this node was the destination of in the iteration under way, by route: from
  // their origin's send to their arrival (index 0 direct, 1 auxiliary), so a report can
  // say what an auxiliary route cost against the primary ones.
  struct Delivered {
    double seconds = 0;
    uint64_t count = 0;
  };
  Delivered delivered_[2];

  // Passive awareness (NetStorm Sec. V).
  struct Samples {
    double bytes = 0, seconds = 0;
    int count = 0;
  };
  std::set<int> neighbors_;  // physical in-neighbours: chunks from them measure a link
  size_t probe_bytes_ = 0;   // PROBE_CHUNK_SIZE in bytes; 0 turns measuring off
  std::map<int, Samples> samples_;
  std::map<int, int64_t> last_arrival_ns_;  // per neighbour: when its last message arrived
  std::map<int, int64_t> base_delay_ns_;    // per neighbour: the link's propagation delay

  // The real training job, when asked for: this node's shard and its copy of the weights.
  std::optional<LogRegConfig> logreg_;
  std::unique_ptr<LogRegShard> shard_;
  std::vector<float> weights_;
  std::vector<float> gradient_;  // a synthetic model's, made when its iteration begins
};

}  // namespace testbed
