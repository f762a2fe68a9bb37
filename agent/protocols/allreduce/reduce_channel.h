// An all-reduce (all_reduce.h) run over the van, round after round: the part every system
// that reduces shares (the all-reduce strategies once a clock, DiLoCo once a round). It
// sends a round's messages to the workers' nodes, keeps what arrives for a round this
// worker has not begun (a faster neighbour's), and drops, counting, what a peer should
// not have sent: a frame from no worker, of a round already over, or one the algorithm
// refuses (a segment of the wrong size, a tag out of turn). A round with a dropped frame
// does not end; the controller's stall watch names the pair that stopped.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/protocols/allreduce/all_reduce.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class ReduceChannel {
 public:
  // `workers`: the node of each rank; `rank`: this worker's; `values`: the most a round
  // reduces; `encoding`: the values' on the wire (value_codec.h; nullptr: fp32). Throws
  // std::invalid_argument for an unknown algorithm or a rank outside the workers.
  ReduceChannel(AgentLink& link, const std::string& algorithm, std::vector<int> workers, int rank,
                size_t values, const ValueCodec* encoding = nullptr);

  // Begins `round` (each later than the last) with this worker's values, at most the
  // channel's length (a round may reduce part of a model: Streaming DiLoCo's fragments).
  // True when the round is over at once: one worker, or every message it needed came early.
  bool begin(uint64_t round, std::vector<float> values);
  // An all-reduce frame from the van. True when it ends the round under way.
  bool take(Received r);
  // The round's values summed over every worker, once it is over.
  const std::vector<float>& sum() const { return reduce_->sum(); }
  uint64_t dropped() const { return dropped_; }

 private:
  struct Early {
    int from;
    uint32_t tag;
    std::vector<float> values;
  };
  void send(std::vector<AllReduceMessage> messages);
  bool incoming(int from, uint32_t tag, std::vector<float> values);

  AgentLink& link_;
  std::string algorithm_;
  std::vector<int> workers_;
  int rank_;
  const ValueCodec* encoding_;
  std::unique_ptr<AllReduce> reduce_;
  size_t values_;
  size_t reducing_values_;  // the algorithm's length: the last round's
  uint64_t round_ = 0;
  bool reducing_ = false;
  std::optional<uint64_t> last_done_;  // the latest round over here
  std::map<uint64_t, std::vector<Early>> early_;
  uint64_t dropped_ = 0;
};

}  // namespace testbed
