// Which server shard holds each of the model's keys, and under which key there.
//
// Without a partition, shard s holds the job's keys of split_keys' range s, under the
// same keys. DRPS's partitioning (Sec. 5, Alg. 3) instead assigns every key (every PIB's
// keys together) to a shard of its choosing; the shards then keep contiguous ranges of
// *server keys*, and this map translates: shard s's server keys are its job keys in
// ascending order, laid end to end after shard s-1's. Keeping the order inside a shard
// means a sorted list of job keys splits into sorted lists of server keys, and the shard
// itself (ServerShard, the store's blocks) needs no change.
//
// The worker translates at its edges (requests, answers, pushes); every node builds the
// same map from the same assignment, so no key is sent with its translation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/protocols/ps/consistency.h"

namespace testbed {

// One rule for every key-value message of the parameter server (pushes, pull requests,
// their answers, aggregators' sums): naming more than half of a range's keys, it goes
// dense, every value of the range and no key. A key-value pair costs 8 bytes against a
// dense value's 4, so past half the dense form is the shorter; a pull request names keys
// only, so past half its dense form (a header) is shorter still. An answer names the keys
// its request named, so it follows the request.
inline bool shorter_dense(size_t keys, size_t range) {
  return keys * 2 > range;
}

class KeyMap {
 public:
  // The identity over split_keys(keys, shards).
  KeyMap(size_t keys, int shards);
  // From the shard of every job key (values below `shards`); throws std::invalid_argument
  // for a value that is not a shard.
  KeyMap(const std::vector<uint8_t>& shard_of_key, int shards);

  bool identity() const { return to_server_.empty(); }
  size_t keys() const { return keys_; }
  const std::vector<KeyRange>& ranges() const { return ranges_; }
  int shard_of(uint32_t job_key) const;
  uint32_t to_server(uint32_t job_key) const { return identity() ? job_key : to_server_[job_key]; }
  uint32_t to_job(uint32_t server_key) const {
    return identity() ? server_key : to_job_[server_key];
  }

  // `job_keys` (sorted, unique) as each shard's server keys (sorted), with `values` (the
  // same length, or empty for none) split alongside.
  struct Part {
    std::vector<uint32_t> keys;
    std::vector<float> values;
  };
  std::vector<Part> split(const std::vector<uint32_t>& job_keys,
                          const std::vector<float>& values) const;
  // Shard s's share of a dense vector over job keys, in its server-key order.
  std::vector<float> gather(int shard, const std::vector<float>& dense) const;
  // Writes shard s's values (server-key order) into the dense vector over job keys.
  void scatter(int shard, const std::vector<float>& values, std::vector<float>& dense) const;
  // Shard s's part of an update as every value of its range (zero where the part has no
  // key), for sending dense (shorter_dense).
  std::vector<float> densify(int shard, const Part& part) const;

 private:
  size_t keys_ = 0;
  std::vector<KeyRange> ranges_;
  std::vector<uint32_t> to_server_, to_job_;  // empty for the identity
};

// The map of a partition file as the controller writes it: one byte per job key, its
// shard (a file rather than the setup message: 2^20 keys would be megabytes of JSON).
// Throws std::runtime_error naming the file when it does not hold exactly `keys` bytes.
KeyMap read_partition(const std::string& path, size_t keys, int shards);

}  // namespace testbed
