#include "controller/training/ps_elastic/ps_elastic_options.h"

namespace testbed {

OptionSpec ps_elastic_option() {
  return {.name = "ps-elastic",
          .type = OptionSpec::Type::kChoice,
          .fallback = "off",
          .choices = {"off", "on"},
          .help =
              "on: a worker that crashes or leaves drops out and one that joins pulls the "
              "servers' model and goes on, instead of ending the run",
          .field = "elastic"};
}

}  // namespace testbed
