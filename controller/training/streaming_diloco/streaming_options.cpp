#include "controller/training/streaming_diloco/streaming_options.h"

#include "agent/protocols/streaming_diloco/streaming_policy.h"
#include "controller/training/diloco/diloco_options.h"

namespace testbed {

std::vector<OptionSpec> streaming_diloco_options() {
  using T = OptionSpec::Type;
  using P = StreamingPolicy;
  const P d;  // the defaults, the agents' own
  std::vector<OptionSpec> specs = diloco_options();
  // The encoding is DiLoCo's field; Streaming DiLoCo names it its own way, as its paper's
  // quantization.
  for (auto& s : specs)
    if (s.name == "diloco-wire") {
      s.name = "streaming-wire";
      s.help = "the pseudo-gradients on the wire (fp4: the paper's 4-bit floats), summed in fp32";
    }
  // The ranges that depend on H (fragments at most H, an overlap under H/P) are the
  // agents' check at setup, which names the field.
  specs.push_back({.name = "streaming-fragments",
                   .type = T::kInt,
                   .fallback = std::to_string(d.fragments),
                   .min = 1,
                   .max = P::kMostFragments,
                   .help = "P: fragments of the model, each synchronized every H steps, "
                           "H/P steps apart",
                   .field = "fragments"});
  specs.push_back(
      {.name = "streaming-overlap",
       .type = T::kInt,
       .fallback = std::to_string(d.overlap),
       .min = 0,
       .max = DilocoPolicy::kMostInnerSteps,
       .help = "tau: inner steps a fragment's all-reduce overlaps (under H/P; 0 blocks)",
       .field = "overlap"});
  specs.push_back({.name = "streaming-mixing",
                   .type = T::kReal,
                   .fallback = number_text(d.mixing),
                   .min = 0,
                   .max = 1,
                   .help = "alpha: the local copy's share when a synchronized fragment is merged "
                           "(0 replaces it, as DiLoCo)",
                   .field = "mixing"});
  return specs;
}

}  // namespace testbed
