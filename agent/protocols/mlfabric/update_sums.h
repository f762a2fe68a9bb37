// MLfabric's aggregator (Sec. 5.2), co-hosted on a worker's node: the scheduler names a
// group of consecutive places in the server's order (first .. first + count - 1); the
// workers send those updates here instead of to the server, and once all have arrived their
// sum goes on to the server as one update covering the group's places. Adding is
// commutative, so the server's model is the one it would have without the aggregator.
// The scheduler's word and the updates race (one over the control socket, the others over
// shaped links), so updates of a group not yet named wait here. Pure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "agent/protocols/ps/key_map.h"

namespace testbed {

struct UpdateSum {
  uint64_t first = 0;
  uint64_t count = 0;
  bool dense = false;          // values of every key, keys left out
  std::vector<uint32_t> keys;  // sparse: ascending
  std::vector<float> values;
};

class UpdateSums {
 public:
  // `parameters`: the model's size. A sparse sum touching more than half of it is sent
  // dense (key_map.h's rule for every message).
  explicit UpdateSums(size_t parameters) : parameters_(parameters) {}

  // The scheduler names a group; returns its sum when every update is already here.
  std::optional<UpdateSum> expect(uint64_t first, uint64_t count) {
    if (count == 0 || !groups_.emplace(first, Group{count, 0, {}, {}, false}).second)
      throw std::runtime_error("aggregate " + std::to_string(first) + " named twice or empty");
    for (auto it = early_.lower_bound(first); it != early_.end() && it->first < first + count;) {
      auto node = early_.extract(it++);
      if (auto sum = add(node.key(), std::move(node.mapped().keys), node.mapped().values))
        return sum;
    }
    return std::nullopt;
  }

  // The update at place `seq` (keys empty: dense); returns its group's sum when complete.
  std::optional<UpdateSum> add(uint64_t seq, std::vector<uint32_t> keys,
                               const std::vector<float>& values) {
    auto g = groups_.upper_bound(seq);
    if (g == groups_.begin() || seq >= std::prev(g)->first + std::prev(g)->second.count) {
      if (!early_.emplace(seq, Early{std::move(keys), values}).second)
        throw std::runtime_error("update " + std::to_string(seq) + " reached its aggregator twice");
      return std::nullopt;
    }
    --g;
    Group& group = g->second;
    if (keys.empty() && values.size() != parameters_)
      throw std::runtime_error("a dense update of the wrong size at the aggregator");
    if (group.sum.empty()) group.sum.assign(parameters_, 0.0);
    if (keys.empty()) {
      for (size_t k = 0; k < values.size(); ++k) group.sum[k] += values[k];
      group.all_keys = true;
    } else {
      for (size_t i = 0; i < keys.size(); ++i) {
        group.sum.at(keys[i]) += values[i];
        group.touched.push_back(keys[i]);
      }
    }
    if (++group.arrived < group.count) return std::nullopt;
    UpdateSum out{g->first, group.count, group.all_keys, {}, {}};
    if (!out.dense) {
      std::sort(group.touched.begin(), group.touched.end());
      group.touched.erase(std::unique(group.touched.begin(), group.touched.end()),
                          group.touched.end());
      out.dense = shorter_dense(group.touched.size(), parameters_);
    }
    if (out.dense) {
      out.values.assign(group.sum.begin(), group.sum.end());
    } else {
      out.keys = std::move(group.touched);
      for (uint32_t k : out.keys) out.values.push_back(static_cast<float>(group.sum[k]));
    }
    groups_.erase(g);
    ++sums_;
    updates_ += out.count;
    return out;
  }

  uint64_t sums() const { return sums_; }        // sent on to the server
  uint64_t updates() const { return updates_; }  // in those sums
  size_t waiting() const { return groups_.size() + early_.size(); }

 private:
  struct Group {
    uint64_t count, arrived;
    std::vector<double> sum;        // per key; double: a group's sum rounds once, as BSP's does
    std::vector<uint32_t> touched;  // sparse updates' keys
    bool all_keys = false;          // a dense update arrived
  };
  struct Early {
    std::vector<uint32_t> keys;
    std::vector<float> values;
  };
  size_t parameters_;
  std::map<uint64_t, Group> groups_;  // first place -> group
  std::map<uint64_t, Early> early_;   // arrived before their group was named
  uint64_t sums_ = 0, updates_ = 0;
};

}  // namespace testbed
