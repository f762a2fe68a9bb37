#include "agent/transport/int8_codebook.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace testbed {
namespace {

// The head: the value count and the table's length.
constexpr size_t kHead = sizeof(uint32_t) + sizeof(uint16_t);

struct Codebook {
  std::vector<float> table;
  std::vector<uint8_t> codes;
};

float finite_or_zero(float v) {
  return std::isfinite(v) ? v : 0.0f;  // a NaN or an infinity goes as zero, as fp4 sends it
}

uint32_t bits_of(float v) {
  uint32_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The values' own table, when they take at most 256 distinct values (compared bit for bit,
// so -0 and 0 stay apart and a value decodes to itself); false if they take more.
bool exact_codebook(const std::vector<float>& values, Codebook& out) {
  std::unordered_map<uint32_t, uint8_t> index;
  out.codes.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const float v = finite_or_zero(values[i]);
    const auto [it, added] = index.try_emplace(bits_of(v), static_cast<uint8_t>(out.table.size()));
    if (added) {
      if (out.table.size() == kInt8Bins) return false;
      out.table.push_back(v);
    }
    out.codes[i] = it->second;
  }
  return true;
}

// The method's: equal bins over six standard deviations, each bin's value its values' mean.
Codebook binned_codebook(const std::vector<float>& values) {
  double squares = 0;
  for (float v : values) squares += double{finite_or_zero(v)} * finite_or_zero(v);
  // Called only for more than 256 values, so n - 1 > 0.
  const double sigma = std::sqrt(squares / static_cast<double>(values.size() - 1));
  const double scale = kInt8RangeInSigmas * sigma / kInt8Bins;
  constexpr int kZero = kInt8Bins / 2;  // the bin of zero: prime's offset
  Codebook c;
  c.codes.resize(values.size());
  std::vector<double> sums(kInt8Bins, 0.0);
  std::vector<size_t> counts(kInt8Bins, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const float v = finite_or_zero(values[i]);
    const long bin = scale > 0 ? std::lround(v / scale) + kZero : kZero;
    const auto code = static_cast<uint8_t>(std::clamp<long>(bin, 0, kInt8Bins - 1));
    c.codes[i] = code;
    sums[code] += v;
    ++counts[code];
  }
  c.table.resize(kInt8Bins);
  for (size_t b = 0; b < kInt8Bins; ++b)
    c.table[b] = counts[b] ? static_cast<float>(sums[b] / static_cast<double>(counts[b])) : 0.0f;
  return c;
}

}  // namespace

std::vector<uint8_t> int8_encode(const std::vector<float>& values) {
  Codebook c;
  if (!exact_codebook(values, c)) c = binned_codebook(values);
  const auto n = static_cast<uint32_t>(values.size());
  const auto k = static_cast<uint16_t>(c.table.size());
  std::vector<uint8_t> out(kHead + k * sizeof(float) + n);
  std::memcpy(out.data(), &n, sizeof n);
  std::memcpy(out.data() + sizeof n, &k, sizeof k);
  if (k) std::memcpy(out.data() + kHead, c.table.data(), k * sizeof(float));
  if (n) std::memcpy(out.data() + kHead + k * sizeof(float), c.codes.data(), n);
  return out;
}

std::vector<float> int8_decode(const uint8_t* bytes, size_t size) {
  if (size < kHead) throw std::runtime_error("int8 values: no head");
  uint32_t n = 0;
  uint16_t k = 0;
  std::memcpy(&n, bytes, sizeof n);
  std::memcpy(&k, bytes + sizeof n, sizeof k);
  if (k > kInt8Bins) throw std::runtime_error("int8 values: a table of " + std::to_string(k));
  if (size != kHead + size_t{k} * sizeof(float) + n)
    throw std::runtime_error("int8 values: " + std::to_string(n) + " values and a table of " +
                             std::to_string(k) + " in " + std::to_string(size) + " bytes");
  std::vector<float> table(k);
  if (k) std::memcpy(table.data(), bytes + kHead, k * sizeof(float));
  for (float t : table)
    if (!std::isfinite(t)) throw std::runtime_error("int8 values: a table entry not finite");
  const uint8_t* codes = bytes + kHead + size_t{k} * sizeof(float);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (codes[i] >= k) throw std::runtime_error("int8 values: a byte past the table");
    v[i] = table[codes[i]];
  }
  return v;
}

}  // namespace testbed
