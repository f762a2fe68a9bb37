#include "controller/training/diloco/diloco_options.h"

#include "agent/protocols/diloco/diloco_policy.h"
#include "agent/transport/value_codec.h"

namespace testbed {

std::vector<OptionSpec> diloco_options() {
  using T = OptionSpec::Type;
  using P = DilocoPolicy;
  const P d;  // the defaults, the agents' own
  return {
      {.name = "diloco-h",
       .type = T::kInt,
       .fallback = std::to_string(d.inner_steps),
       .min = 1,
       .max = P::kMostInnerSteps,
       .help = "H: inner steps a data center takes between outer steps (the paper's 500, scaled)",
       .field = "inner_steps"},
      {.name = "diloco-outer-lr",
       .type = T::kReal,
       .fallback = number_text(d.outer_lr),
       .min = 0,
       .max = P::kMostOuterLr,
       .help = "the outer step's learning rate (the paper's 0.7)",
       .field = "outer_lr"},
      {.name = "diloco-momentum",
       .type = T::kReal,
       .fallback = number_text(d.outer_momentum),
       .min = 0,
       .max = P::kMostMomentum,
       .help = "the outer step's Nesterov momentum (the paper's 0.9)",
       .field = "outer_momentum"},
      {.name = "diloco-inner",
       .type = T::kChoice,
       .fallback = d.inner,
       .choices = {"sgd", "adamw"},
       .help = "the inner optimizer: the job's own step (sgd), or the paper's AdamW",
       .field = "inner"},
      {.name = "diloco-inner-lr",
       .type = T::kReal,
       .fallback = number_text(d.inner_lr),
       .min = 0,
       .max = P::kMostInnerLr,
       .help = "AdamW's learning rate (the paper's 4e-4)",
       .field = "inner_lr"},
      {.name = "diloco-weight-decay",
       .type = T::kReal,
       .fallback = number_text(d.weight_decay),
       .min = 0,
       .max = P::kMostWeightDecay,
       .help = "AdamW's decoupled weight decay (the paper's 0.1)",
       .field = "weight_decay"},
      {.name = "diloco-wire",
       .type = T::kChoice,
       .fallback = d.wire,
       .choices = value_codec_names(),
       .help = "the pseudo-gradients on the wire, summed in fp32 (int8: INTELLECT-1's, a byte "
               "a value and a 256-entry table a message)",
       .field = "wire"},
      {.name = "diloco-elastic",
       .type = T::kChoice,
       .fallback = d.elastic ? "on" : "off",
       .choices = {"off", "on"},
       .help = "on: a data center that crashes or leaves drops out of the next outer step, "
               "as in INTELLECT-1, instead of ending the run",
       .field = "elastic"},
  };
}

}  // namespace testbed
