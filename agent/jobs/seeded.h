// Seeded draws that are functions of their inputs only (no generator state), so a job's
// data, initial values and compute times are the same on every node, in every run of a
// seed, and independent of the order things are drawn in.
#pragma once

#include <cmath>
#include <cstdint>

namespace testbed {

// SplitMix64's finalizer: a well-mixed 64-bit hash.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) {
  // The golden-ratio constant keeps (a, b, c) and its permutations apart.
  return mix64(mix64(a ^ 0x9e3779b97f4a7c15ULL) ^ mix64(b + 1) ^ mix64(c + 0x632be59bd9b4e019ULL));
}

// Uniform in (0, 1): the top 53 bits, offset by half a step so that log() never sees 0.
inline double hashed_uniform(uint64_t h) {
  return (static_cast<double>(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Standard normal by Box-Muller from two hashes of the inputs.
inline double hashed_normal(uint64_t a, uint64_t b, uint64_t c) {
  const double u1 = hashed_uniform(hash3(a, b, c));
  const double u2 = hashed_uniform(hash3(a ^ 0x5bd1e995ULL, b, c));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace testbed
