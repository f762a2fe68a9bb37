// MLfabric's options (its registry entries' tables): the scheduler's aggregators, the
// model's distribution and the monitor for both servers; MLfabric-A's delay bound, and its
// two ways to survive the server's death (a replica with its divergence bound, or a
// standby loading checkpoints; Sec. 5.3, 7.3). And their typed values as the run reads them.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

struct MlfabricKnobs {
  int delay_bound = 0;            // MLfabric-A's tau_max in versions; 0: one per worker
  int aggregators = -1;           // per batch; -1: one per worker
  std::string replica;            // MLfabric-A's hot-standby replica's node; empty: none
  int div_max = -1;               // its bound on the server's lead; -1: one per worker
  std::string standby;            // MLfabric-A's cold standby, loading checkpoints; empty: none
  int checkpoint_every = 0;       // the server's checkpoint every so many updates; 0: none
  bool distribution = true;       // the model distributed through distributors
  bool monitor_arrivals = false;  // an overdue message keeps its path busy
};

// MLfabric-S drops nothing and replicates nothing: the paper evaluates neither for it, so
// its table is the shared part of MLfabric-A's.
std::vector<OptionSpec> mlfabric_a_options();
std::vector<OptionSpec> mlfabric_s_options();
// MLfabric-A's rules across options: --div-max needs --replica; --standby and
// --checkpoint-every go together; a replica or a standby, not both.
std::string check_mlfabric_a_options(const nlohmann::json& values,
                                     const std::set<std::string>& given);

// From either table's typed values; MLfabric-S's lack A's fields, which keep their defaults.
MlfabricKnobs mlfabric_knobs(const nlohmann::json& policy);

}  // namespace testbed
