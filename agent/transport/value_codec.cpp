#include "agent/transport/value_codec.h"

#include "agent/transport/int8_codebook.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace testbed {
namespace {

std::vector<uint8_t> fp32_encode(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<float> fp32_decode(const uint8_t* bytes, size_t size) {
  if (size % sizeof(float) != 0) throw std::runtime_error("fp32 values: a partial value");
  std::vector<float> v(size / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), bytes, size);
  return v;
}

uint16_t to_bf16(float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // stays a NaN
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);                 // to nearest, ties even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float from_bf16(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::vector<uint8_t> bf16_encode(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t h = to_bf16(v[i]);
    out[2 * i] = static_cast<uint8_t>(h & 0xff);
    out[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return out;
}

std::vector<float> bf16_decode(const uint8_t* bytes, size_t size) {
  if (size % 2 != 0) throw std::runtime_error("bf16 values: a partial value");
  std::vector<float> v(size / 2);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = from_bf16(static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
  return v;
}

// E3M0: code 0 is zero, codes 1..7 the magnitudes scale x 2^(code - 7).
constexpr int kLevels = 7;
// The fp4 payload's head: the value count (a message may hold an odd number of values)
// and the scale.
constexpr size_t kFp4Head = sizeof(uint32_t) + sizeof(float);

uint8_t fp4_code(float v, float scale) {
  const float r = std::fabs(v) / scale;
  if (!(r > 0)) return 0;  // zero, or a NaN: zero
  // The nearest level: between 2^k and 2^(k+1) the midpoint is 1.5 x 2^k; between zero and
  // the smallest level 2^-6, half of it.
  if (r < std::ldexp(1.0f, -kLevels)) return 0;
  int e = 0;
  const float m = std::frexp(r, &e);   // r = m x 2^e, m in [0.5, 1)
  int level = m >= 0.75f ? e : e - 1;  // the exponent of the nearest power of two
  level = std::max(-(kLevels - 1), std::min(0, level));
  const auto code = static_cast<uint8_t>(level + kLevels);
  return static_cast<uint8_t>(code | (std::signbit(v) ? 8 : 0));
}

float fp4_value(uint8_t code, float scale) {
  const int level = code & 7;
  if (level == 0) return 0.0f;
  const float magnitude = std::ldexp(scale, level - kLevels);
  return (code & 8) ? -magnitude : magnitude;
}

std::vector<uint8_t> fp4_encode(const std::vector<float>& v) {
  float scale = 0;
  for (float x : v)
    if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  std::vector<uint8_t> out(kFp4Head + (v.size() + 1) / 2, 0);
  const auto n = static_cast<uint32_t>(v.size());
  std::memcpy(out.data(), &n, sizeof n);
  std::memcpy(out.data() + sizeof n, &scale, sizeof scale);
  if (scale == 0) return out;
  for (size_t i = 0; i < v.size(); ++i)
    out[kFp4Head + i / 2] |= static_cast<uint8_t>(fp4_code(v[i], scale) << (i % 2 ? 4 : 0));
  return out;
}

std::vector<float> fp4_decode(const uint8_t* bytes, size_t size) {
  if (size < kFp4Head) throw std::runtime_error("fp4 values: no head");
  uint32_t n = 0;
  float scale = 0;
  std::memcpy(&n, bytes, sizeof n);
  std::memcpy(&scale, bytes + sizeof n, sizeof scale);
  if (size != kFp4Head + (size_t{n} + 1) / 2)
    throw std::runtime_error("fp4 values: " + std::to_string(n) + " values in " +
                             std::to_string(size) + " bytes");
  if (!std::isfinite(scale) || scale < 0) throw std::runtime_error("fp4 values: a bad scale");
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = fp4_value(static_cast<uint8_t>(bytes[kFp4Head + i / 2] >> (i % 2 ? 4 : 0)) & 0xf, scale);
  return v;
}

const std::vector<ValueCodec>& codecs() {
  static const std::vector<ValueCodec> kCodecs = {
      {0, "fp32", fp32_encode, fp32_decode, "4 bytes a value, exact"},
      {1, "bf16", bf16_encode, bf16_decode,
       "2 bytes a value: fp32's upper half, rounded to nearest, ties to even"},
      {2, "fp4", fp4_encode, fp4_decode,
       "half a byte a value, E3M0 (Streaming DiLoCo's 4-bit floats); our choice: the "
       "message's largest magnitude as its scale, an fp32 ahead of the values"},
      {3, "int8", int8_encode, int8_decode,
       "a byte a value and a 256-entry fp32 table a message (INTELLECT-1's int8 all-reduce): "
       "256 bins over 6 standard deviations about zero, each bin's entry the mean of its "
       "values; our choice: a message of at most 256 distinct values goes exactly, its "
       "values as its table, so a ring's all-gather forwards a sum unchanged and every "
       "replica holds the same one"},
  };
  return kCodecs;
}

}  // namespace

const ValueCodec* find_value_codec(const std::string& name) {
  for (const auto& c : codecs())
    if (name == c.name) return &c;
  return nullptr;
}

const std::vector<std::string>& value_codec_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& c : codecs()) names.emplace_back(c.name);
    return names;
  }();
  return kNames;
}

const ValueCodec* value_codec_by_id(uint8_t id) {
  for (const auto& c : codecs())
    if (id == c.id) return &c;
  return nullptr;
}

void round_to(const ValueCodec& codec, std::vector<float>& values) {
  if (codec.id == 0) return;
  const std::vector<uint8_t> bytes = codec.encode(values);
  values = codec.decode(bytes.data(), bytes.size());
}

}  // namespace testbed
