// How an all-reduce's values travel on the wire (WireKind::kRing, the header's chunk_kind):
// as they are (fp32), or in fewer bits, as low-communication training sends its
// pseudo-gradients (Streaming DiLoCo's 4-bit floats). A receiver decodes them back to fp32
// and sums in fp32. Encoding loses precision; round() gives a worker's own copy the values
// the others will decode, so every replica of a sum stays the same.
//   fp32  4 bytes a value, exact
//   bf16  2 bytes a value: fp32's upper half, rounded to nearest (ties to even)
//   fp4   half a byte a value, E3M0 (a sign and 3 exponent bits, no mantissa): 0 or
//         +-scale x 2^-6 .. scale x 2^0, with the message's largest magnitude as its scale
//         (an fp32 ahead of the values), rounded to the nearest level. The paper names the
//         format; the scale per message is our choice (docs/streaming-diloco.md).
//   int8  a byte a value and a 256-entry table a message: INTELLECT-1's int8 all-reduce
//         (int8_codebook.h)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

struct ValueCodec {
  uint8_t id;  // on the wire; fp32's is 0, what every other message kind carries
  const char* name;
  // The payload of `values`.
  std::vector<uint8_t> (*encode)(const std::vector<float>& values);
  // The values of a payload; throws std::runtime_error for one no encoding of ours makes.
  std::vector<float> (*decode)(const uint8_t* bytes, size_t size);
  // What it does and what of it is our choice: a run's summary says it beside the name.
  const char* method;
};

// By name ("fp32", "bf16", "fp4", "int8") or by wire id; nullptr for an unknown one.
const ValueCodec* find_value_codec(const std::string& name);
// Every name, fp32 first: the choices a run's options offer.
const std::vector<std::string>& value_codec_names();
const ValueCodec* value_codec_by_id(uint8_t id);
// `values` replaced by what a receiver decodes of them.
void round_to(const ValueCodec& codec, std::vector<float>& values);

}  // namespace testbed
