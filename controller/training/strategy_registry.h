// Every strategy `train` knows, each with the traits the controller runs it by. The rest of
// the controller asks a strategy's traits (is it scheduled? which all-reduce? where do its
// parameters live?) and never compares its name: adding a strategy is its own files plus
// one entry in kStrategies (strategy_registry.cpp), and the option checks, the session's
// choices and the summary follow from the entry. containerlab's node kinds are the model
// (clab/register.go): the core never compares kind strings.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "agent/contracts/node_replies.h"
#include "agent/protocols/tree/sync_policy.h"
#include "controller/training/system_options.h"

namespace testbed {

struct StrategyOptions;
struct StrategyTraits;

// Which run carries the strategy, and so which agents' protocol it speaks.
enum class StrategyKind {
  kTree,       // aggregation trees over all nodes, one barrier per iteration (runs/tree/)
  kServer,     // sharded parameter servers, workers on their own clocks (runs/ps/)
  kAllReduce,  // workers only, the model held by their all-reduce (runs/ps/, agent allreduce)
  kGaia,       // a full replica per data center kept close by ASP (runs/ps/ps_gaia*)
  kPlacement,  // one BSP server placed by APSP's rule, source-routed pulls (runs/apsp/)
};

// MLfabric's scheduler (controller/training/mlfabric/): none, or the paper's two servers.
enum class Scheduling {
  kNone,
  kBoundedDelay,  // MLfabric-A: an asynchronous server, updates ordered within a delay bound
  kPerClock,      // MLfabric-S: a synchronous server, each clock's updates placed together
};

// A system's own figures for a scenario's expectations, from its repetitions' summaries
// (MLfabric's failover, Gaia's divergence through a fault).
using ScenarioFigures = void (*)(const std::vector<nlohmann::json>& runs,
                                 std::map<std::string, double>& figures);

// A tree strategy's builder: the SyncPolicy it trains by over the measured throughput.
using TreeBuilder = SyncPolicy (*)(const StrategyTraits&, const ThroughputGraph&,
                                   const StrategyOptions&);

struct StrategyTraits {
  std::string name{};
  StrategyKind kind = StrategyKind::kTree;
  std::string about{};  // one line for `train --help` and the docs

  // Tree strategies.
  TreeBuilder build = nullptr;
  int roots = 0;         // FAPT roots: 1 (fapt), -1 (NUM_ROOT_SERVERS), 0 (its own tree)
  bool aware = false;    // rebuilds its trees from what chunks measure during the run
  bool aux = false;      // sends on auxiliary paths too (NetStorm-Pro)
  bool at_node = false;  // NAME@NODE (and --server) fixes its server: ps and the placements

  // Server, all-reduce and Gaia strategies.
  std::string consistency{};  // the server's model; "" : --parallel chooses (drps)
  bool disk_store = false;    // parameters on disk, the only store it takes (DRPS)
  Scheduling scheduling = Scheduling::kNone;
  std::string all_reduce{};       // "ring" (RR-Sync), "tree" (Tr-Sync), else ""
  bool named_models = false;      // trains a named model's dense size (MLfabric's jobs)
  bool clocks_in_passes = false;  // its t counts passes over the data (Gaia, docs/gaia.md)

  // Placement strategies: how placement::chosen_server() picks the server.
  std::string placement_rule{};  // "apsp", "random" or "most-connected"

  // A system with a protocol of its own on the agents (agent/protocols/protocol_registry.cpp)
  // names it (gaia, diloco, ...); "" : its kind's (ps or allreduce).
  std::string protocol{};
  // Its own options (system_options.h): parsed, checked, listed in `train --help` and sent
  // to its agents as TrainingSetup::policy, with no code of its own in the option parser.
  std::vector<OptionSpec> options{};
  // Its table's rules across options (one needs another); nullptr: none.
  OptionsRule options_rule = nullptr;
  // Its section of a run's summary (`--json`'s key: gaia, mlfabric, ...), and the choices
  // it made where its paper is silent, which `testbed plan` shows under that key before a
  // run; "" and nullptr: none.
  std::string section{};
  nlohmann::json (*choices)() = nullptr;
  ScenarioFigures scenario_figures = nullptr;  // nullptr: the core's figures only
  // Its own replies' check (its events, its report's sections); nullptr: it has none.
  ReplyCheck check_reply = nullptr;

  bool ps() const { return kind != StrategyKind::kTree; }
  bool scheduled() const { return scheduling != Scheduling::kNone; }
};

// In the order `train --help` lists them: the tree strategies, then the parameter-server
// ones, then the placements.
const std::vector<StrategyTraits>& strategy_registry();
// nullptr for a name no entry has (NAME@NODE is not split here: split_placed first).
const StrategyTraits* find_strategy(const std::string& name);
// Throws std::invalid_argument naming every known strategy.
const StrategyTraits& strategy_traits(const std::string& name);
// The names of one kind's strategies, in the registry's order.
std::vector<std::string> strategy_names_of(StrategyKind kind);

// The strategies whose tables declare option `name`, for an error ("mlfabric-a and
// mlfabric-s"); "" when none does.
std::string option_takers(const std::string& name);
// The first strategy whose table declares option `name`, or nullptr. Several may take one
// option (Streaming DiLoCo takes DiLoCo's), declared alike in each: system_options_test
// checks it, so a profile key means one thing.
const StrategyTraits* option_owner(const std::string& name);
const OptionSpec* find_option(const StrategyTraits& traits, const std::string& name);
// The systems' reply checks, each once, in the registry's order.
const std::vector<ReplyCheck>& reply_checks();
// Every table's option names, in the registry's order.
std::vector<std::string> system_option_names();

}  // namespace testbed
