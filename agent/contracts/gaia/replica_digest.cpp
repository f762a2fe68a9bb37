#include "agent/contracts/gaia/replica_digest.h"

#include <cmath>
#include <stdexcept>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// SplitMix64's finalizer: every bit of k reaches the bucket and the sign, and it is the
// same on every node and build (std::hash is neither).
uint64_t mix(uint64_t k) {
  k += 0x9e3779b97f4a7c15ULL;
  k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ULL;
  k = (k ^ (k >> 27)) * 0x94d049bb133111ebULL;
  return k ^ (k >> 31);
}

}  // namespace

std::vector<float> count_sketch(const std::vector<float>& values, size_t buckets) {
  std::vector<double> sum(buckets, 0.0);  // summed in double: 10^5 terms lose nothing
  for (size_t k = 0; k < values.size(); ++k) {
    const uint64_t h = mix(k);
    const double sign = (h >> 63) ? -1.0 : 1.0;
    sum[h % buckets] += sign * values[k];
  }
  return {sum.begin(), sum.end()};
}

double sketch_distance(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("sketches of different sizes");
  double squared = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    squared += d * d;
  }
  return std::sqrt(squared);
}

nlohmann::json to_json(const ReplicaDigest& d) {
  return {{"event", "digest"},
          {"clock", d.clock},
          {"norm", d.norm},
          {"sketch", d.sketch},
          {"waiting_keys", d.waiting_keys}};
}

ReplicaDigest replica_digest_from_json(const nlohmann::json& j) {
  const FieldReader r(j, "digest");
  ReplicaDigest d;
  d.clock = r.required<uint64_t>("clock");
  d.norm = r.required<double>("norm");
  d.sketch = r.required<std::vector<float>>("sketch");
  d.waiting_keys = r.required<uint64_t>("waiting_keys");
  if (d.sketch.size() != kSketchBuckets)
    throw r.error("sketch", "has " + std::to_string(d.sketch.size()) + " buckets, not " +
                                std::to_string(kSketchBuckets));
  return d;
}

}  // namespace testbed
