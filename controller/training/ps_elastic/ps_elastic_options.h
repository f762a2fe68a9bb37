// The elastic parameter server's option (runs/ps_elastic/elastic_ps_run.h), which the
// asynchronous parameter server's registry entry adds to the store's options.
#pragma once

#include "controller/training/system_options.h"

namespace testbed {

OptionSpec ps_elastic_option();

}  // namespace testbed
