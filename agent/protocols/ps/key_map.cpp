#include "agent/protocols/ps/key_map.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>

namespace testbed {

KeyMap::KeyMap(size_t keys, int shards) : keys_(keys), ranges_(split_keys(keys, shards)) {}

KeyMap::KeyMap(const std::vector<uint8_t>& shard_of_key, int shards)
    : keys_(shard_of_key.size()), to_server_(shard_of_key.size()), to_job_(shard_of_key.size()) {
  std::vector<uint32_t> next(static_cast<size_t>(shards), 0);
  for (uint8_t s : shard_of_key) {
    if (s >= shards)
      throw std::invalid_argument("key map: shard " + std::to_string(s) + " of " +
                                  std::to_string(shards));
    ++next[s];
  }
  // Counts to the first server key of each shard.
  uint32_t begin = 0;
  for (uint32_t& n : next) {
    ranges_.push_back({begin, begin + n});
    begin += n;
    n = ranges_.back().begin;
  }
  for (uint32_t k = 0; k < shard_of_key.size(); ++k) {
    const uint32_t server = next[shard_of_key[k]]++;
    to_server_[k] = server;
    to_job_[server] = k;
  }
}

int KeyMap::shard_of(uint32_t job_key) const {
  const uint32_t server = to_server(job_key);
  const auto it = std::upper_bound(ranges_.begin(), ranges_.end(), server,
                                   [](uint32_t k, const KeyRange& r) { return k < r.end; });
  return static_cast<int>(it - ranges_.begin());
}

std::vector<KeyMap::Part> KeyMap::split(const std::vector<uint32_t>& job_keys,
                                        const std::vector<float>& values) const {
  std::vector<Part> parts(ranges_.size());
  const bool with_values = !values.empty();
  if (identity()) {
    // Sorted keys: each shard's are one run of them.
    auto lo = job_keys.begin();
    for (size_t s = 0; s < ranges_.size(); ++s) {
      const auto hi = std::lower_bound(lo, job_keys.end(), ranges_[s].end);
      parts[s].keys.assign(lo, hi);
      if (with_values)
        parts[s].values.assign(values.begin() + (lo - job_keys.begin()),
                               values.begin() + (hi - job_keys.begin()));
      lo = hi;
    }
    return parts;
  }
  for (size_t i = 0; i < job_keys.size(); ++i) {
    Part& p = parts[static_cast<size_t>(shard_of(job_keys[i]))];
    p.keys.push_back(to_server_[job_keys[i]]);  // ascending: the order inside a shard is kept
    if (with_values) p.values.push_back(values[i]);
  }
  return parts;
}

std::vector<float> KeyMap::gather(int shard, const std::vector<float>& dense) const {
  const KeyRange r = ranges_.at(static_cast<size_t>(shard));
  if (identity()) return {dense.begin() + r.begin, dense.begin() + r.end};
  std::vector<float> out(r.size());
  for (uint32_t k = 0; k < r.size(); ++k) out[k] = dense[to_job_[r.begin + k]];
  return out;
}

std::vector<float> KeyMap::densify(int shard, const Part& part) const {
  const KeyRange r = ranges_.at(static_cast<size_t>(shard));
  std::vector<float> dense(r.size(), 0.0f);
  for (size_t i = 0; i < part.keys.size(); ++i) dense.at(part.keys[i] - r.begin) = part.values[i];
  return dense;
}

void KeyMap::scatter(int shard, const std::vector<float>& values, std::vector<float>& dense) const {
  const KeyRange r = ranges_.at(static_cast<size_t>(shard));
  if (values.size() != r.size()) throw std::runtime_error("params of the wrong size");
  for (uint32_t k = 0; k < r.size(); ++k) dense[to_job(r.begin + k)] = values[k];
}

KeyMap read_partition(const std::string& path, size_t keys, int shards) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> shard_of(keys);
  if (!in.read(reinterpret_cast<char*>(shard_of.data()), static_cast<std::streamsize>(keys)) ||
      in.peek() != std::char_traits<char>::eof())
    throw std::runtime_error("partition " + path + ": expected one byte for each of " +
                             std::to_string(keys) + " keys");
  return KeyMap(shard_of, shards);
}

}  // namespace testbed
