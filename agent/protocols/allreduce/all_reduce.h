// An all-reduce among W workers, as a pure message-driven state machine: each clock every
// worker begins with its update, exchanges messages with the others, and ends holding the
// sum of all W updates. The algorithms differ only in who sends what to whom:
//   ring  reduce-scatter then all-gather around a ring (NCCL's and MPI's ring; MLfabric's
//         RR-Sync baseline): every link carries 2(W-1)/W of the model, every clock;
//   tree  reduce up a binary tree to rank 0, then broadcast the sum down it (MLfabric's
//         Tr-Sync baseline): each tree edge carries the whole model once each way.
// The round core (round_protocol.h) moves the messages over the van and hands over only
// messages of the clock under way, after begin(); an algorithm takes them in any order.
// Adding an algorithm is a class here and one entry in make_all_reduce().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/transport/value_codec.h"

namespace testbed {

struct AllReduceMessage {
  int to = 0;        // the receiving worker's rank
  uint32_t tag = 0;  // the algorithm's name for the message within the clock
  std::vector<float> values;
};

class AllReduce {
 public:
  virtual ~AllReduce() = default;
  // Starts a clock with this worker's update (the model's length); returns what to send now.
  virtual std::vector<AllReduceMessage> begin(std::vector<float> update) = 0;
  // What worker `from` sent with `tag` this clock; returns what to send now.
  virtual std::vector<AllReduceMessage> incoming(int from, uint32_t tag,
                                                 std::vector<float> values) = 0;
  // The clock is over here: sum() is every worker's update summed.
  virtual bool done() const = 0;
  virtual const std::vector<float>& sum() const = 0;

  // Values go on the wire in `codec`'s encoding (value_codec.h; unset: fp32). A worker
  // rounds what it sends, in place where it keeps the values too, so the sum it keeps is
  // the one its peers decode, and every worker ends with the same sum.
  void set_encoding(const ValueCodec* codec) { codec_ = codec; }

 protected:
  // [b, e) of `v` replaced by what a receiver decodes of it.
  void round(std::vector<float>& v, size_t b, size_t e) const;

 private:
  const ValueCodec* codec_ = nullptr;
};

// "ring" or "tree"; throws std::invalid_argument for another name or a rank outside 0..W-1.
std::unique_ptr<AllReduce> make_all_reduce(const std::string& algorithm, size_t values, int workers,
                                           int rank);
const std::vector<std::string>& all_reduce_names();

}  // namespace testbed
