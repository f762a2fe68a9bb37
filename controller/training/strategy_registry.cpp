#include "controller/training/strategy_registry.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/diloco/diloco_replies.h"
#include "agent/contracts/drps/drps_replies.h"
#include "agent/contracts/gaia/gaia_replies.h"
#include "agent/contracts/mlfabric/mlfabric_replies.h"
#include "controller/training/apsp/apsp_options.h"
#include "controller/training/diloco/diloco_options.h"
#include "controller/training/drps/disk_store_options.h"
#include "controller/training/gaia/gaia_figures.h"
#include "controller/training/gaia/gaia_options.h"
#include "controller/training/gaia/gaia_plan.h"
#include "controller/training/membership_figures.h"
#include "controller/training/mlfabric/mlfabric_figures.h"
#include "controller/training/mlfabric/mlfabric_options.h"
#include "controller/training/mlfabric/update_scheduler.h"
#include "controller/training/ps_elastic/ps_elastic_options.h"
#include "controller/training/strategies.h"
#include "controller/training/streaming_diloco/streaming_options.h"

namespace testbed {
namespace {

// The asynchronous parameter server's: the store's, and its workers' elastic membership.
std::vector<OptionSpec> async_options() {
  std::vector<OptionSpec> specs = disk_store_options();
  specs.push_back(ps_elastic_option());
  return specs;
}

using K = StrategyKind;
using S = Scheduling;

// One entry per strategy, fields in StrategyTraits' order (designated initializers).
// Where each is built and which paper it comes from: docs/training.md.
std::vector<StrategyTraits> make_registry() {
  return {
      // NetStorm's baselines and stages (Sec. IX-B).
      {.name = "ps",
       .about = "star: every node sends to one parameter server (MXNET)",
       .build = build_star_policy,
       .at_node = true},
      {.name = "bkt",
       .about = "balanced k-ary tree over the nodes, blind to the network (MLNET)",
       .build = build_bkt_policy},
      {.name = "mst",
       .about = "maximum-throughput spanning tree of the links (TSEngine)",
       .build = build_mst_policy},
      {.name = "fapt",
       .about = "one fastest-aggregation-path tree at the best-scoring root",
       .build = build_fapt_policy,
       .roots = 1},
      {.name = "netstorm-lite",
       .about = "NetStorm's static multi-root FAPT",
       .build = build_fapt_policy,
       .roots = -1},
      {.name = "netstorm-std",
       .about = "multi-root FAPT rebuilt from what chunks measure during the run",
       .build = build_fapt_policy,
       .roots = -1,
       .aware = true},
      {.name = "netstorm-pro",
       .about = "netstorm-std plus auxiliary paths",
       .build = build_fapt_policy,
       .roots = -1,
       .aware = true,
       .aux = true},
      {.name = "netstorm",
       .about = "NetStorm, the whole system (= netstorm-pro)",
       .build = build_fapt_policy,
       .roots = -1,
       .aware = true,
       .aux = true},
      // Sharded parameter servers named by their consistency model.
      {.name = "bsp",
       .kind = K::kServer,
       .about = "parameter servers, bulk synchronous",
       .consistency = "bsp",
       .options = disk_store_options(),
       .options_rule = check_disk_store_options,
       .check_reply = check_drps_reply},
      {.name = "ssp",
       .kind = K::kServer,
       .about = "parameter servers, stale synchronous (--staleness)",
       .consistency = "ssp",
       .options = disk_store_options(),
       .options_rule = check_disk_store_options,
       .check_reply = check_drps_reply},
      {.name = "async",  // also MLfabric's plain asynchronous baseline, hence its models
       .kind = K::kServer,
       .about = "parameter servers, asynchronous",
       .consistency = "async",
       .named_models = true,
       .options = async_options(),  // the store's, and elastic workers
       .options_rule = check_disk_store_options,
       .scenario_figures = membership_scenario_figures,
       .check_reply = check_drps_reply},
      {.name = "gaia",  // its summary's model is Gaia's own ASP
       .kind = K::kGaia,
       .about = "a replica per data center kept close by ASP (Gaia)",
       .consistency = "gaia",
       .clocks_in_passes = true,
       .protocol = "gaia",
       .options = gaia_options(),
       .section = "gaia",
       .choices = gaia_choices,
       .scenario_figures = gaia_scenario_figures,
       .check_reply = check_gaia_reply},
      {.name = "drps",
       .kind = K::kServer,
       .about = "disk-resident parameter servers (DRPS) under --parallel",
       .disk_store = true,
       .options = drps_options(),
       .options_rule = check_disk_store_options,
       .check_reply = check_drps_reply},
      {.name = "mlfabric-a",
       .kind = K::kServer,
       .about = "MLfabric-A: asynchronous server, updates scheduled in a delay bound",
       .consistency = "async",
       .scheduling = S::kBoundedDelay,
       .named_models = true,
       .options = mlfabric_a_options(),
       .options_rule = check_mlfabric_a_options,
       .section = "mlfabric",
       .choices = mlfabric_choices,
       .scenario_figures = mlfabric_scenario_figures,
       .check_reply = check_mlfabric_reply},
      {.name = "mlfabric-s",
       .kind = K::kServer,
       .about = "MLfabric-S: synchronous server, each clock's updates scheduled",
       .consistency = "bsp",
       .scheduling = S::kPerClock,
       .named_models = true,
       .options = mlfabric_s_options(),
       .section = "mlfabric",
       .choices = mlfabric_choices,
       .check_reply = check_mlfabric_reply},
      {.name = "rr-sync",
       .kind = K::kAllReduce,
       .about = "ring all-reduce among the workers, no server (MLfabric's RR-Sync)",
       .consistency = "bsp",
       .all_reduce = "ring",
       .named_models = true},
      {.name = "tr-sync",
       .kind = K::kAllReduce,
       .about = "binary-tree all-reduce among the workers (MLfabric's Tr-Sync)",
       .consistency = "bsp",
       .all_reduce = "tree",
       .named_models = true},
      // DiLoCo (Douillard et al., 2023): H inner steps per data center, then an outer
      // Nesterov step on the averaged pseudo-gradients (agent/protocols/diloco/).
      {.name = "diloco",
       .kind = K::kAllReduce,
       .about = "H local steps per data center, then a ring all-reduce of the pseudo-gradients "
                "and an outer Nesterov step (DiLoCo)",
       .consistency = "diloco",
       .all_reduce = "ring",
       .named_models = true,
       .protocol = "diloco",
       .options = diloco_options(),
       .scenario_figures = membership_scenario_figures,
       .check_reply = check_diloco_reply},
      // Streaming DiLoCo (Douillard et al., 2025): DiLoCo's fragments synchronized in turn,
      // overlapped with the inner steps, quantized (agent/protocols/streaming_diloco/).
      {.name = "streaming-diloco",
       .kind = K::kAllReduce,
       .about = "DiLoCo with the model's fragments synchronized in turn, each overlapped with "
                "the next inner steps, in fp32, bf16 or 4-bit floats (Streaming DiLoCo)",
       .consistency = "diloco",
       .all_reduce = "ring",
       .named_models = true,
       .protocol = "streaming-diloco",
       .options = streaming_diloco_options(),
       .scenario_figures = membership_scenario_figures,
       .check_reply = check_diloco_reply},
      // APSP's placement and its two baselines (Li et al.): one BSP server.
      {.name = "apsp",
       .kind = K::kPlacement,
       .about = "the server at v* = argmin T_v (APSP)",
       .at_node = true,
       .consistency = "bsp",
       .placement_rule = "apsp",
       .options = apsp_options()},
      {.name = "ps-most-connected",
       .kind = K::kPlacement,
       .about = "the server at the node with the most links",
       .at_node = true,
       .consistency = "bsp",
       .placement_rule = "most-connected",
       .options = apsp_options()},
      {.name = "ps-random",
       .kind = K::kPlacement,
       .about = "the server at a node drawn from the seed",
       .at_node = true,
       .consistency = "bsp",
       .placement_rule = "random",
       .options = apsp_options()},
  };
}

}  // namespace

const std::vector<StrategyTraits>& strategy_registry() {
  static const std::vector<StrategyTraits> kStrategies = make_registry();
  return kStrategies;
}

const StrategyTraits* find_strategy(const std::string& name) {
  for (const auto& t : strategy_registry()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const StrategyTraits& strategy_traits(const std::string& name) {
  if (const StrategyTraits* t = find_strategy(name)) return *t;
  std::string known;
  for (const auto& t : strategy_registry()) known += (known.empty() ? "" : ", ") + t.name;
  throw std::invalid_argument("unknown strategy '" + name + "' (use " + known + ")");
}

std::vector<std::string> strategy_names_of(StrategyKind kind) {
  std::vector<std::string> names;
  for (const auto& t : strategy_registry()) {
    if (t.kind == kind) names.push_back(t.name);
  }
  return names;
}

const OptionSpec* find_option(const StrategyTraits& traits, const std::string& name) {
  for (const auto& o : traits.options)
    if (o.name == name) return &o;
  return nullptr;
}

const StrategyTraits* option_owner(const std::string& name) {
  for (const auto& t : strategy_registry())
    if (find_option(t, name) != nullptr) return &t;
  return nullptr;
}

std::string option_takers(const std::string& name) {
  std::vector<std::string> takers;
  for (const auto& t : strategy_registry())
    if (find_option(t, name) != nullptr) takers.push_back(t.name);
  std::string s;
  for (size_t i = 0; i < takers.size(); ++i)
    s += (i == 0 ? "" : i + 1 == takers.size() ? " and " : ", ") + takers[i];
  return s;
}

const std::vector<ReplyCheck>& reply_checks() {
  static const std::vector<ReplyCheck> kChecks = [] {
    std::vector<ReplyCheck> checks;
    for (const auto& t : strategy_registry())
      if (t.check_reply != nullptr &&
          std::find(checks.begin(), checks.end(), t.check_reply) == checks.end())
        checks.push_back(t.check_reply);
    return checks;
  }();
  return kChecks;
}

std::vector<std::string> system_option_names() {
  std::vector<std::string> names;
  for (const auto& t : strategy_registry())
    for (const auto& o : t.options)  // an option several systems take is named once
      if (std::find(names.begin(), names.end(), o.name) == names.end()) names.push_back(o.name);
  return names;
}

}  // namespace testbed
