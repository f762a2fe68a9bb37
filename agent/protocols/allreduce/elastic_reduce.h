// The all-reduce of an elastic run (agent/contracts/elastic_messages.h): the
// controller names each attempt's members, so the ring reforms over whoever is in, as
// INTELLECT-1's ElasticDeviceMesh reforms its global group. A worker holds its values from
// the end of its round's compute until an attempt over them is committed, so an attempt a
// member's death cut short is begun again over those left with the same values.
//
// A frame of an attempt not yet begun here (a faster member's) is kept, a bounded number;
// one of an attempt over, or from no member, is dropped and counted, as ReduceChannel
// drops what a peer should not have sent.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/contracts/elastic_messages.h"
#include "agent/protocols/allreduce/reduce_channel.h"

namespace testbed {

class ElasticReduce {
 public:
  // `nodes`: the lab's; `values`: the most a round reduces.
  ElasticReduce(AgentLink& link, std::string algorithm, size_t nodes, size_t values,
                const ValueCodec* encoding);

  // This worker's values for its next round, held until a commit.
  void hold(std::vector<float> values) { held_ = std::move(values); }
  // Begins attempt `c.seq` over `c.members` with the held values (any attempt under way is
  // given up). True when its sum is complete at once. Throws ContractError for a member
  // list without this worker, or an attempt older than one begun.
  bool reduce(const ReduceCommand& c);
  // A frame from the van: true when it completes the attempt under way.
  bool take(Received r);
  // The sum of the attempt under way, once complete.
  const std::vector<float>& sum() const { return channel_->sum(); }
  uint64_t seq() const { return seq_; }
  // A frame refused by the system above (a joiner's model of the wrong size).
  void refused() { ++dropped_; }
  uint64_t dropped() const { return dropped_ + (channel_ ? channel_->dropped() : 0); }

 private:
  AgentLink& link_;
  std::string algorithm_;
  size_t nodes_;
  size_t values_;
  const ValueCodec* encoding_;
  std::vector<float> held_;
  std::unique_ptr<ReduceChannel> channel_;
  uint64_t seq_ = 0;
  bool begun_ = false;
  std::map<uint64_t, std::vector<Received>> early_;
  size_t early_frames_ = 0;
  uint64_t dropped_ = 0;  // besides the channels' own
};

}  // namespace testbed
