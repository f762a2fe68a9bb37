// A Gaia data center's reply to `digest`: its replica of the model, summed into a count
// sketch, so the controller can tell how far two data centers' replicas have drifted apart
// (the divergence a partition leaves at its heal, docs/faults.md) without carrying whole
// models. One struct, both ends: the agent fills it (replica_digest), the controller reads
// it (replica_digest_from_json) and compares two (sketch_distance).
//
// The sketch: each parameter k adds s(k) * x[k] to bucket h(k), with h and s from one fixed
// hash of k, the same on every node. For two replicas x and y the squared distance between
// their sketches is an unbiased estimate of |x - y|^2 (the AMS / count-sketch estimator);
// with B buckets the estimate of |x - y|^2 has a standard deviation of at most
// sqrt(2/B) of it, so the distance's is about 1/sqrt(2B): 3% at 512, whatever the model's
// size. The results say they carry an estimate.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace testbed {

// 512 floats, about 6 KB as JSON, per data center and poll (the controller polls once an
// eval interval): a 3% error on the distance, for a cost of one pass over the replica.
constexpr size_t kSketchBuckets = 512;

struct ReplicaDigest {
  uint64_t clock = 0;         // clocks the data center has ended
  double norm = 0;            // |x|, exact
  std::vector<float> sketch;  // kSketchBuckets sums
  uint64_t waiting_keys = 0;  // significant updates waiting for a mirror (every link, summed)
};

std::vector<float> count_sketch(const std::vector<float>& values, size_t buckets = kSketchBuckets);
// The estimate of |x - y| from the sketches of x and y (of one size; throws otherwise).
double sketch_distance(const std::vector<float>& a, const std::vector<float>& b);

nlohmann::json to_json(const ReplicaDigest& d);
// Refuses a missing or mistyped field, or a sketch of another size (ContractError).
ReplicaDigest replica_digest_from_json(const nlohmann::json& j);

}  // namespace testbed
