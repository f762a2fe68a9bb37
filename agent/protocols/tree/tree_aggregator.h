// One node's part in synchronizing a model over aggregation trees, as a pure state machine:
// it is given its gradient and the policy, and then the messages that arrive, and it
// returns the messages to send. The transport that carries them is separate (ps-lite's
// van), so this logic is tested in memory with any delivery order.
//
// Per chunk, in the tree that carries it: a node waits for every child's partial sum, adds
// its own gradient, and sends the total up; the root's total is the model's sum, sent back
// down the same tree. Messages for an iteration this node has not started yet are held
// until it starts it (policy consistency: one policy per iteration, every chunk of an
// iteration travels the trees of that iteration's policy).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "agent/protocols/tree/sync_policy.h"
#include "agent/transport/chunk_message.h"

namespace testbed {

class TreeAggregator {
 public:
  TreeAggregator(int self, uint32_t chunk_elements)
      : self_(self), chunk_elements_(chunk_elements) {}

  // Starts `iteration` with this node's gradient under `policy`; returns what to send,
  // including the consequences of messages held for this iteration.
  std::vector<ChunkMessage> start(uint64_t iteration, const SyncPolicy& policy,
                                  std::vector<float> gradient);
  std::vector<ChunkMessage> receive(ChunkMessage message);

  bool done() const { return started_ && finished_chunks_ == chunks_; }
  // The sum of every node's gradient, once done().
  const std::vector<float>& result() const { return result_; }
  uint64_t iteration() const { return iteration_; }

 private:
  struct ChunkState {
    int tree = 0;
    int waiting = 0;                            // children yet to send their partial sum
    std::map<int, std::vector<float>> partial;  // child -> its partial sum
    bool finished = false;
  };
  void handle(ChunkMessage& m, std::vector<ChunkMessage>& out);
  void send_up_or_finish(uint32_t chunk, std::vector<ChunkMessage>& out);
  void finish(uint32_t chunk, const float* data, std::vector<ChunkMessage>& out);
  std::pair<size_t, size_t> span(uint32_t chunk) const;

  int self_;
  uint32_t chunk_elements_;
  bool started_ = false;
  uint64_t iteration_ = 0;
  SyncPolicy policy_;
  std::vector<std::vector<std::vector<int>>> children_;  // [tree][node] -> children
  std::vector<float> gradient_, result_;
  std::vector<ChunkState> state_;
  uint32_t chunks_ = 0, finished_chunks_ = 0;
  std::vector<ChunkMessage> held_;  // arrived for a later iteration
};

}  // namespace testbed
