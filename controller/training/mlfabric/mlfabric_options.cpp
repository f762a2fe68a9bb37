#include "controller/training/mlfabric/mlfabric_options.h"

namespace testbed {
std::vector<OptionSpec> mlfabric_s_options() {
  using T = OptionSpec::Type;
  return {
      // Aggregators are co-hosted with the workers (Sec. 7): by default one on every
      // worker's node.
      {.name = "aggregators",
       .type = T::kInt,
       .fallback = "all",
       .min = 0,
       .max = 1000,
       .help = "aggregators per batch (Sec. 5.2), co-hosted with the workers; all: one each",
       .words = {{"all", -1}},
       .unit = "aggregators"},
      {.name = "distribution",
       .type = T::kChoice,
       .fallback = "on",
       .choices = {"on", "off"},
       .help = "the model distributed to the workers through distributors (Sec. 5.4)"},
      {.name = "monitor",
       .type = T::kChoice,
       .fallback = "plan",
       .choices = {"plan", "arrivals"},
       .help = "the links' free rate: the plan's, or an overdue message keeps its path busy"},
  };
}

std::vector<OptionSpec> mlfabric_a_options() {
  using T = OptionSpec::Type;
  std::vector<OptionSpec> o = mlfabric_s_options();
  // Unset bounds are one per worker: the paper's are 30 with its 30 workers (Sec. 7, 7.3).
  o.push_back({.name = "delay-bound",
               .type = T::kInt,
               .min = 1,
               .max = 1000000,
               .help = "tau_max in model versions (unset: one per worker, the paper's 30 of 30)",
               .field = "delay_bound",
               .arg = "VERSIONS",
               .unit = "model versions"});
  o.push_back({.name = "replica",
               .type = T::kText,
               .help = "the hot-standby replica's node (Sec. 5.3; unset: none)",
               .check = check_node_name,
               .arg = "NODE"});
  o.push_back({.name = "div-max",
               .type = T::kInt,
               .min = 0,
               .max = 1000000,
               .help = "the replica's bound on the server's lead (unset: one per worker)",
               .field = "div_max",
               .arg = "UPDATES",
               .unit = "updates"});
  o.push_back({.name = "standby",
               .type = T::kText,
               .help = "the node loading the server's last checkpoint when it dies (Sec. 7.3)",
               .check = check_node_name,
               .arg = "NODE"});
  o.push_back({.name = "checkpoint-every",
               .type = T::kInt,
               .min = 1,
               .max = 1000000,
               .help = "the server's checkpoint every so many updates (with --standby)",
               .field = "checkpoint_every",
               .arg = "UPDATES",
               .unit = "updates"});
  return o;
}

std::string check_mlfabric_a_options(const nlohmann::json& values, const std::set<std::string>&) {
  const bool replica = !values.at("replica").is_null();
  const bool standby = !values.at("standby").is_null();
  if (!values.at("div_max").is_null() && !replica)
    return "--div-max bounds a replica's divergence: name it with --replica NODE";
  if (values.at("checkpoint_every").is_null() == standby)
    return "--checkpoint-every and --standby go together: the server's checkpoints, and the "
           "node that loads the last one when the server dies";
  if (standby && replica)
    return "--standby (checkpoints) or --replica (a hot standby), not both: they are the "
           "paper's two ways to survive the server's death (Sec. 7.3)";
  return "";
}

MlfabricKnobs mlfabric_knobs(const nlohmann::json& policy) {
  MlfabricKnobs k;
  k.aggregators = option_or(policy, "aggregators", k.aggregators);
  k.distribution = option_or<std::string>(policy, "distribution", "on") == "on";
  k.monitor_arrivals = option_or<std::string>(policy, "monitor", "plan") == "arrivals";
  k.delay_bound = option_or(policy, "delay_bound", k.delay_bound);
  k.replica = option_or<std::string>(policy, "replica", "");
  k.div_max = option_or(policy, "div_max", k.div_max);
  k.standby = option_or<std::string>(policy, "standby", "");
  k.checkpoint_every = option_or(policy, "checkpoint_every", k.checkpoint_every);
  return k;
}

}  // namespace testbed
