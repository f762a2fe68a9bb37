#include "controller/options/run_options.h"

#include <algorithm>
#include <bit>
#include <set>
#include <sstream>
#include <tuple>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "agent/jobs/logistic_regression.h"
#include "controller/options/core_options.h"
#include "controller/topology/units.h"
#include "controller/training/drps/disk_store_options.h"
#include "controller/training/strategies.h"
#include "controller/training/strategy_registry.h"
#include "controller/training/system_options.h"

namespace testbed {
namespace {

// --eval-every's default, in its own unit (seconds), from the setup's one default.
const std::string kDefaultEvalEvery =
    std::to_string(TrainingSetup::kDefaultEvalIntervalMs / 1000.0);

// NetStorm's probe settings (Table II): PROBE_CHUNK_NUM 4 chunks measured; two more lead
// the train because TCP's slow start distorts the first ones. 1 MiB keeps the run short.
constexpr uint32_t kProbeCount = 6;
constexpr size_t kProbeBytes = 1 << 20;

// The paper's runs cut AlexNet's 64 M parameters into chunks of 1 M (Table II): about 64
// chunks per model, enough to pipeline aggregation and give every root and auxiliary
// path its share. A scaled model keeps that count rather than the size, within bounds:
// 16 Ki elements (64 KiB) keeps per-message overheads small against a WAN hop, and 1 Mi
// is the paper's size. A power of two, so runs of nearby scales cut alike.
constexpr size_t kChunksPerModel = 64;
constexpr size_t kMinChunk = size_t{1} << 14, kMaxChunk = size_t{1} << 20;

uint32_t default_chunk(size_t elements) {
  return static_cast<uint32_t>(std::clamp(
      std::bit_floor(std::max<size_t>(1, elements / kChunksPerModel)), kMinChunk, kMaxChunk));
}

}  // namespace

std::optional<std::string> CommandLine::option(const std::string& name) const {
  const auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

const std::vector<std::string>& command_line_only_keys() {
  static const std::vector<std::string> kKeys = {"probe-count", "probe-bytes", "probe-link"};
  return kKeys;
}

const std::vector<std::string>& run_flags() {
  static const std::vector<std::string> kFlags = {"json", "oracle", "probe-only"};
  return kFlags;
}

namespace {

// The run's settings as the command line over the profile give them: each value checked
// by its option's table wherever it came from (the error names where), and a number's
// typed value parsed by that table once.
class Settings {
 public:
  Settings(const CommandLine& args, const nlohmann::json& workload)
      : args_(args), workload_(workload) {}

  // The value's text, checked; `fallback` when neither gives it ("" stays "": unset).
  std::string text(const std::string& key, const std::string& fallback) const {
    std::string value = fallback, origin = "default";
    if (auto v = args_.option(key)) {
      value = *v;
      origin = "--" + key;
    } else if (workload_.contains(key)) {
      value = workload_[key].get<std::string>();
      origin = "the profile's workload." + key;
    }
    if (origin == "default" && value.empty()) return value;  // computed later
    const std::string why = check_workload_setting(key, value);
    if (!why.empty()) throw UsageError(origin + " '" + value + "': " + why);
    return value;
  }
  // A core number's typed value (its table's words, "none", read as their numbers);
  // std::nullopt when unset.
  template <typename T>
  std::optional<T> number(const std::string& key, const std::string& fallback = "") const {
    const std::string value = text(key, fallback);
    if (value.empty()) return std::nullopt;
    return option_value(*find_core_option(key), value).get<T>();
  }

 private:
  const CommandLine& args_;
  const nlohmann::json& workload_;
};

// The parameter-server strategies train a job. A profile's workload written for the tree
// strategies names a model size (resnet50 x0.1): then the job is mf at its own scale,
// unless the command line says otherwise.
// APSP's experiments synchronize a dense model of a named size (Table II) with no real
// computation behind it: the dense job, of the model's parameters times the scale. A job's
// name trains that job instead, its size the job's own.
TrainOptions resolve_placement_options(const CommandLine& args, const Settings& get,
                                       TrainOptions o) {
  o.placement = true;
  // APSP's workers are every node but the server.
  if (args.option("workers")) throw UsageError("--workers is not for " + o.strategy);
  const std::string model = get.text("model", "resnet50");
  // 1/100 of the paper's models: ResNet-50 is 0.92 MB, as the APSP scenarios run it.
  o.scale = *get.number<double>("scale", "0.01");
  if (is_job(model)) {
    o.job = model;
    o.model = ModelProfile{model, 0};
  } else {
    o.model = find_model(model);
    o.job = "dense";
    o.job_parameters = static_cast<size_t>(static_cast<double>(o.model.parameters) * o.scale);
    if (o.job_parameters == 0)
      throw UsageError("the model scaled by " + get.text("scale", "") + " is empty");
  }
  o.seed = *get.number<uint64_t>("seed", "1");
  o.servers = "";
  o.eval_every_s = *get.number<double>("eval-every", kDefaultEvalEvery);
  o.max_seconds = get.number<double>("max-seconds").value_or(0);
  o.json = args.flag("json");
  for (const char* other : {"chunk", "update-time", "primary-busy-bound", "aux-queue-length",
                            "probe-count", "probe-bytes", "probe-link", "staleness", "servers",
                            "compute-ms", "compute-as", "target-loss"}) {
    if (args.option(other))
      throw UsageError("--" + std::string(other) + " is not for " + o.strategy +
                       " (one server, BSP, no compute time: the paper's setting)");
  }
  if (args.flag("oracle") || args.flag("probe-only"))
    throw UsageError("--oracle and --probe-only are for the tree strategies, not " + o.strategy);
  return o;
}

TrainOptions resolve_ps_options(const CommandLine& args, const nlohmann::json& workload,
                                const Settings& get, TrainOptions o) {
  const StrategyTraits& t = strategy_traits(o.strategy);
  // A replica per data center (Gaia's kind): every data center runs workers, on clocks of
  // their own.
  const bool replicas = t.kind == StrategyKind::kGaia;
  const std::string model = get.text("model", "mf");
  const bool named_here = args.option("model").has_value();
  // MLfabric's strategies and its plain asynchronous baseline also train a dense model of a
  // named size (its ResNets' traffic): the dense job of the model's parameters times the
  // scale, as APSP's runs do.
  const auto named_models = [](const std::string& s) {
    const StrategyTraits* of = find_strategy(split_placed(s).first);
    return of != nullptr && of->named_models;
  };
  const bool ours = named_here || named_models(workload.value("strategy", ""));
  if (t.named_models && !is_job(model) && ours) {
    o.model = find_model(model);
    o.job = "dense";
    o.scale = *get.number<double>("scale", "0.01");
    o.job_parameters = static_cast<size_t>(static_cast<double>(o.model.parameters) * o.scale);
    if (o.job_parameters == 0)
      throw UsageError("the model scaled by " + get.text("scale", "") + " is empty");
  } else {
    if (!is_job(model) && named_here)
      throw UsageError("--model " + model + ": " + o.strategy +
                       " trains a job (logreg, mf, lmf or sparse-lr), not a model's size");
    o.job = is_job(model) ? model : "mf";
    o.model = ModelProfile{o.job, 0};
    const bool scale_for_job =
        args.option("scale") ||
        (workload.contains("model") && is_job(workload["model"].get<std::string>()));
    o.scale = scale_for_job ? *get.number<double>("scale", "1") : 1.0;
  }
  o.logreg = false;
  const ComputeRange compute = parse_compute_range(get.text("compute-ms", "0"));
  o.compute_min_ms = compute.min_ms;
  o.compute_max_ms = compute.max_ms;
  o.seed = *get.number<uint64_t>("seed", "1");
  // "none": WSP with no delta (its choices alone decide); SSP without one is async.
  o.staleness = *get.number<int>("staleness", std::to_string(TrainingSetup::kDefaultStaleness));
  o.servers = get.text("servers", "all");
  o.worker_nodes = get.text("workers", "all");
  // Gaia's data centers each run workers beside their full replica.
  if (o.worker_nodes != "all" && replicas)
    throw UsageError("--workers is not for " + o.strategy + ": every data center runs workers");
  o.target_loss = get.number<double>("target-loss");
  o.max_seconds = get.number<double>("max-seconds").value_or(0);
  o.eval_every_s = *get.number<double>("eval-every", kDefaultEvalEvery);
  o.json = args.flag("json");
  o.workers_per_dc = *get.number<int>("workers-per-dc", "1");
  o.target_rule = get.text("target-rule", "share");
  if (const std::string slow = get.text("slow-dc", ""); !slow.empty())
    o.slow = parse_slowdowns(slow);
  if (const std::string s = get.text("stragglers", ""); !s.empty())
    o.stragglers = parse_stragglers(s);
  o.compute_on_cpu = get.text("compute-as", "wait") == "cpu";
  if (o.compute_on_cpu && replicas)
    throw UsageError("--compute-as cpu is not built for " + o.strategy +
                     " (its local workers keep clocks of their own); its compute is waited");
  // Gaia's t counts passes (IterStore's and Bösen's iterations, docs/gaia.md); every other
  // strategy keeps the job's clocks unless told, and a Gaia profile says `gaia-t` in its
  // workload so that its Baseline trains the same job.
  o.t_in_passes = get.text("gaia-t", t.clocks_in_passes ? "pass" : "clock") == "pass";
  // A strategy whose table chooses the parallel model (DRPS's --parallel) has no model of
  // its own; the others are theirs.
  o.consistency =
      t.consistency.empty() ? o.policy.at("consistency").get<std::string>() : t.consistency;
  // Where the parameters live: the store's table says, or the strategy keeps them on disk
  // (DRPS) and takes no other store.
  if (t.disk_store) {
    if (o.policy.at("store") != "disk" && !get.text("store", "").empty())
      throw UsageError("--store memory: " + o.strategy + " keeps its parameters on disk (for the " +
                       "in-memory server, --strategy bsp, ssp or async)");
    o.policy["store"] = "disk";
  }
  o.store = o.policy.is_object() ? o.policy.value("store", "memory") : "memory";
  // Alg. 3 places the blocks a job's batches read; a dense job reads every key each clock.
  if (o.store == "disk" && disk_store_knobs(o.policy).partition &&
      make_job({o.job, o.seed, 1, o.scale, o.job_parameters}, 0)->keys_for(0).empty())
    throw UsageError("--partition: " + o.job + " reads every key each clock (dense); " +
                     "partitioning places the keys of sparse batches (sparse-lr, lmf, mf)");
  if (o.staleness == TrainingSetup::kNoBound && o.consistency != "wsp")
    throw UsageError(
        "--staleness none is for WSP (--parallel wsp); SSP without a bound is "
        "--parallel async");
  for (const char* tree_only : {"chunk", "update-time", "primary-busy-bound", "aux-queue-length",
                                "probe-count", "probe-bytes", "probe-link"}) {
    if (args.option(tree_only))
      throw UsageError("--" + std::string(tree_only) + " is for the tree strategies, not " +
                       o.strategy);
  }
  if (args.flag("oracle") || args.flag("probe-only"))
    throw UsageError("--oracle and --probe-only are for the tree strategies, not " + o.strategy);
  if (t.options_rule != nullptr) {
    std::set<std::string> on_command_line;
    for (const auto& spec : t.options)
      if (args.option(spec.name)) on_command_line.insert(spec.name);
    if (const std::string why = t.options_rule(o.policy, on_command_line); !why.empty())
      throw UsageError(why);
  }
  return o;
}

}  // namespace

TrainOptions resolve_train_options(const CommandLine& args, const nlohmann::json& workload) {
  // Command line first, then the profile, then the default; values from either are
  // checked the same way and errors say where the value came from.
  const Settings get(args, workload);
  TrainOptions o;
  std::tie(o.strategy, o.server) = split_placed(get.text("strategy", "netstorm"));
  if (const std::string server = get.text("server", ""); !server.empty()) {
    if (!o.server.empty() && o.server != server)
      throw UsageError("--server " + server + " and the strategy's @" + o.server + " disagree");
    o.server = server;
  }
  const StrategyTraits* traits = find_strategy(o.strategy);
  if (traits == nullptr)  // check_workload_setting refused it already; kept for the reader
    throw UsageError("unknown strategy '" + o.strategy + "'");
  if (!o.server.empty() && !traits->at_node)
    throw UsageError("--server is for ps and the placement strategies, not " + o.strategy);
  o.iterations = *get.number<int>("iterations", std::to_string(kDefaultIterations));
  o.ps = traits->ps();
  // Another system's own option on the command line is refused, naming its system; a
  // profile's key is not (one workload serves several strategies).
  for (const auto& [key, value] : args.options)
    if (option_owner(key) != nullptr && find_option(*traits, key) == nullptr)
      throw UsageError("--" + key + " is for " + option_takers(key) + ", not " + o.strategy);
  // The strategy's own options, typed, defaults filled (null: it has no table).
  if (!traits->options.empty()) {
    std::map<std::string, std::string> given;
    for (const auto& spec : traits->options)
      if (const std::string v = get.text(spec.name, ""); !v.empty()) given[spec.name] = v;
    o.policy = option_values(traits->options, given);
  }
  for (const char* ps_only : {"stragglers", "workers"})
    if (!o.ps && args.option(ps_only))
      throw UsageError("--" + std::string(ps_only) +
                       " is for the parameter-server strategies (bsp, ssp, async, drps), not " +
                       o.strategy);
  if (traits->kind == StrategyKind::kPlacement) return resolve_placement_options(args, get, o);
  if (o.ps) return resolve_ps_options(args, workload, get, o);
  // What the tree strategies take. Another system's option on the command line is refused
  // rather than left unused; a profile's key is not, because one workload serves several
  // strategies (internet2.yaml's is NetStorm's, and `--strategy ssp` runs on it).
  static const std::set<std::string> kTreeKeys = {
      "strategy",    "model",       "scale",       "iterations",       "compute-ms",
      "chunk",       "seed",        "update-time", "max-seconds",      "primary-busy-bound",
      "probe-count", "probe-bytes", "probe-link",  "aux-queue-length", "server"};
  for (const auto& [key, value] : args.options)
    if (!kTreeKeys.count(key))
      throw UsageError("--" + key + " is not for the tree strategies (" + o.strategy +
                       "): it is another system's option");
  const std::string model = get.text("model", "resnet50");
  if (is_job(model) && model != "logreg")
    throw UsageError("the " + model + " job runs on the parameter-server strategies (" +
                     "--strategy bsp, ssp, async or drps)");
  // logreg: the real training job, small and exact to check; the others are model sizes.
  o.logreg = model == "logreg";
  o.model = o.logreg ? ModelProfile{"logreg", 0} : find_model(model);
  // 0.1 of ResNet-50 is 9.2 MB: an iteration takes seconds, not minutes, on 20-155 Mbit/s.
  o.scale = *get.number<double>("scale", "0.1");
  const ComputeRange compute = parse_compute_range(get.text("compute-ms", "0"));
  o.compute_min_ms = compute.min_ms;
  o.compute_max_ms = compute.max_ms;
  o.chunk = get.number<uint32_t>("chunk").value_or(0);
  o.seed = *get.number<uint64_t>("seed", "1");
  // UPDATE_TIME (Table II: 5 s): how often the scheduler rebuilds an aware strategy's trees.
  o.update_time_s = *get.number<double>("update-time", "5");
  o.max_seconds = get.number<double>("max-seconds").value_or(0);
  const auto knob = [&](const std::string& name, int fallback) {
    const int v = *get.number<int>(name, std::to_string(fallback));
    if (v < 0) throw UsageError("--" + name + " must not be negative");
    return v;
  };
  o.aux.primary_busy_bound = knob("primary-busy-bound", o.aux.primary_busy_bound);
  o.aux.queue_length = knob("aux-queue-length", o.aux.queue_length);
  o.oracle = args.flag("oracle");
  o.json = args.flag("json");
  // The start-of-run measurement, adjustable for benchmarks: --probe-only stops after it,
  // --probe-link A:B measures that one direction alone.
  o.probe_only = args.flag("probe-only");
  o.probe_count = static_cast<uint32_t>(
      std::stoul(args.option("probe-count").value_or(std::to_string(kProbeCount))));
  o.probe_bytes = std::stoul(args.option("probe-bytes").value_or(std::to_string(kProbeBytes)));
  o.probe_link = args.option("probe-link").value_or("");
  if (o.probe_count < 3) throw UsageError("--probe-count must be at least 3 (two lead the train)");
  LogRegConfig job;
  o.elements = o.logreg ? static_cast<size_t>(job.features) + 1
                        : static_cast<size_t>(static_cast<double>(o.model.parameters) * o.scale);
  if (o.elements == 0)
    throw UsageError("the model scaled by " + std::to_string(o.scale) + " is empty");
  if (o.chunk == 0) o.chunk = default_chunk(o.elements);
  return o;
}

namespace {

std::string format_significant(double x, int figures) {
  std::ostringstream s;
  s.precision(figures);
  s << x;
  return s.str();
}

}  // namespace

void apply_fit_factor(TrainOptions& o, double factor) {
  if (!(factor > 0) || factor >= 1) return;
  o.fit_factor = factor;
  // 0.1 x 0.1 is 0.010000000000000002 in binary: the scale people read is rounded to the
  // twelve figures no setting here comes near.
  const auto scaled = [&] { return std::stod(format_significant(o.scale * factor, 12)); };
  const auto times = [&](size_t n) {
    const auto scaled = static_cast<size_t>(static_cast<double>(n) * factor);
    if (scaled == 0)
      throw UsageError("the model scaled by the lab's fit (" + format_factor(factor) +
                       ") is empty: bring the lab up with a larger budget or --fit off");
    return scaled;
  };
  if (!o.ps && !o.placement) {
    if (o.logreg) return;
    const bool default_chunk_size = o.chunk == default_chunk(o.elements);
    o.elements = times(o.elements);
    if (default_chunk_size) o.chunk = default_chunk(o.elements);
    o.scale = scaled();
    return;
  }
  if (o.job == "dense") {
    o.job_parameters = times(o.job_parameters);
  }
  o.scale = scaled();
}

int compute_ms(const TrainOptions& o, int node, uint64_t iteration) {
  return draw_compute_ms({o.compute_min_ms, o.compute_max_ms}, o.seed, node, iteration);
}

}  // namespace testbed
