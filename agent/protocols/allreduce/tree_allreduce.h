// Binary-tree all-reduce (MLfabric's Tr-Sync baseline, MPI's and NCCL's tree): the workers
// form a binary tree by rank, rank 0 the root and rank r's children 2r+1 and 2r+2. Each
// worker adds its children's partial sums to its update and sends the result to its
// parent (tag kUp); the root then holds the whole sum and sends it down the tree, each
// worker passing it on to its children (tag kDown). Every tree edge carries the whole model
// once each way per clock, so a worker with two children receives and sends twice the model
// (the ring moves 2(W-1)/W of it per link), and a subtree's sum moves up while a straggler
// elsewhere still computes.
//
// Pure: who sends what when; the protocol moves the messages.
#pragma once

#include <cstddef>
#include <vector>

#include "agent/protocols/allreduce/all_reduce.h"

namespace testbed {

class TreeAllReduce : public AllReduce {
 public:
  static constexpr uint32_t kUp = 0, kDown = 1;

  TreeAllReduce(size_t values, int workers, int rank);

  std::vector<AllReduceMessage> begin(std::vector<float> update) override;
  std::vector<AllReduceMessage> incoming(int from, uint32_t tag,
                                         std::vector<float> values) override;
  bool done() const override { return done_; }
  const std::vector<float>& sum() const override { return buffer_; }

  int parent() const { return rank_ == 0 ? -1 : (rank_ - 1) / 2; }
  std::vector<int> children() const;

 private:
  // Every child's sum is in: up to the parent, or (the root) down to the children.
  std::vector<AllReduceMessage> subtree_summed();
  std::vector<AllReduceMessage> down();

  size_t values_;
  int workers_, rank_;
  std::vector<float> buffer_;
  std::vector<int> children_left_;
  bool done_ = false;
};

}  // namespace testbed
