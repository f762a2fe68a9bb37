// A selective barrier's set of keys as a bitmap, 32 keys to a 4-byte word, for sets where
// the index list would be longer: a barrier naming 40% of mf x2's 20,000 parameters is
// 32 KB as indexes and 2.5 KB as a bitmap. The paper says a barrier carries "the indexes"
// (Sec. 4.2) and not how; the set is the same either way. Pure.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace testbed {

inline size_t bitmap_words(size_t parameters) {
  return (parameters + 31) / 32;
}

// True when the bitmap of a model of `parameters` is shorter than a list of `keys` indexes.
inline bool bitmap_is_shorter(size_t keys, size_t parameters) {
  return bitmap_words(parameters) < keys;
}

inline std::vector<uint32_t> to_bitmap(const std::vector<uint32_t>& keys, size_t parameters) {
  std::vector<uint32_t> words(bitmap_words(parameters), 0);
  for (uint32_t k : keys) words.at(k / 32) |= uint32_t{1} << (k % 32);
  return words;
}

// Throws on a bitmap of the wrong length or naming a key beyond the model: a peer's
// message, dropped by the caller.
inline std::vector<uint32_t> from_bitmap(const std::vector<uint32_t>& words, size_t parameters) {
  if (words.size() != bitmap_words(parameters))
    throw std::runtime_error("a barrier's bitmap of " + std::to_string(words.size()) +
                             " words for a model of " + std::to_string(parameters) + " keys");
  std::vector<uint32_t> keys;
  for (size_t w = 0; w < words.size(); ++w)
    for (uint32_t b = 0; b < 32; ++b)
      if (words[w] >> b & 1u) {
        const uint64_t k = w * 32 + b;
        if (k >= parameters)
          throw std::runtime_error("a barrier's bitmap names a key past the model");
        keys.push_back(static_cast<uint32_t>(k));
      }
  return keys;
}

}  // namespace testbed
