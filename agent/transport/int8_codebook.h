// INTELLECT-1's int8 pseudo-gradients (Jaghouar et al., 2024, arXiv 2412.01152, Sec. 2:
// "int8 all-reduce"; the method as its public implementation, PrimeIntellect-ai/prime,
// src/zeroband/C/csrc/compression.cpp, computes it): each value becomes one byte, a bin of
// 256 equal bins over six standard deviations centred on zero (the standard deviation is
// the values' root mean square, n - 1 in the denominator; values beyond the range go to
// the end bins), and the message carries a 256-entry fp32 table, each bin's value being
// the mean of the values that fell into it. A receiver looks each byte up and sums in fp32.
//
// Payload: the value count (uint32), the table's length k (uint16), k fp32 table entries,
// then one byte per value, each below k.
//
// Our choice beside the method: a message whose values already take at most 256 distinct
// values is sent exactly, those values as its table. A segment forwarded in a ring's
// all-gather is such a message (it was decoded from a table), so forwarding it changes
// nothing and every replica of a sum stays the same; prime re-quantizes at each hop of its
// all-gather, so its replicas can differ by that error (docs/diloco.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace testbed {

// 256 bins over this many standard deviations: prime's RANGE_IN_SIGMAS.
constexpr double kInt8RangeInSigmas = 6.0;
constexpr size_t kInt8Bins = 256;

std::vector<uint8_t> int8_encode(const std::vector<float>& values);
// Throws std::runtime_error for a payload no encoder of ours makes: a wrong length, a table
// over 256 entries or with a value that is not finite, a byte past the table.
std::vector<float> int8_decode(const uint8_t* bytes, size_t size);

}  // namespace testbed
