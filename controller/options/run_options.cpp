#include "controller/options/run_options.h"

#include <algorithm>
#include <bit>
#include <set>
#include <sstream>
#include <tuple>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "agent/jobs/logistic_regression.h"
#include "controller/topology/units.h"
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

// The parameter-server strategies train a job. A profile's workload written for the tree
// strategies names a model size (resnet50 x0.1): then the job is mf at its own scale,
// unless the command line says otherwise.
// APSP's experiments synchronize a dense model of a named size (Table II) with no real
// computation behind it: the dense job, of the model's parameters times the scale. A job's
// name trains that job instead, its size the job's own.
template <typename Get>
TrainOptions resolve_placement_options(const CommandLine& args, Get& get, TrainOptions o) {
  o.placement = true;
  // APSP's workers are every node but the server.
  if (args.option("workers")) throw UsageError("--workers is not for " + o.strategy);
  const std::string model = get("model", "resnet50");
  // 1/100 of the paper's models: ResNet-50 is 0.92 MB, as the APSP scenarios run it.
  o.scale = std::stod(get("scale", "0.01"));
  if (is_job(model)) {
    o.job = model;
    o.model = ModelProfile{model, 0};
  } else {
    o.model = find_model(model);
    o.job = "dense";
    o.job_parameters = static_cast<size_t>(static_cast<double>(o.model.parameters) * o.scale);
    if (o.job_parameters == 0)
      throw UsageError("the model scaled by " + get("scale", "") + " is empty");
  }
  o.seed = std::stoull(get("seed", "1"));
  o.servers = "";
  o.apsp_mode = get("apsp-mode", "model");
  o.capacity = get("capacity", "undirected");
  o.draws = std::stoi(get("draws", "1"));
  o.eval_every_s = std::stod(get("eval-every", kDefaultEvalEvery));
  const std::string budget = get("max-seconds", "");
  o.max_seconds = budget.empty() ? 0 : std::stod(budget);
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

template <typename Get>
TrainOptions resolve_ps_options(const CommandLine& args, const nlohmann::json& workload, Get& get,
                                TrainOptions o) {
  const StrategyTraits& t = strategy_traits(o.strategy);
  const bool gaia = t.kind == StrategyKind::kGaia;
  const std::string model = get("model", "mf");
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
    o.scale = std::stod(get("scale", "0.01"));
    o.job_parameters = static_cast<size_t>(static_cast<double>(o.model.parameters) * o.scale);
    if (o.job_parameters == 0)
      throw UsageError("the model scaled by " + get("scale", "") + " is empty");
  } else {
    if (!is_job(model) && named_here)
      throw UsageError("--model " + model + ": " + o.strategy +
                       " trains a job (logreg, mf, lmf or sparse-lr), not a model's size");
    o.job = is_job(model) ? model : "mf";
    o.model = ModelProfile{o.job, 0};
    const bool scale_for_job =
        args.option("scale") ||
        (workload.contains("model") && is_job(workload["model"].get<std::string>()));
    o.scale = scale_for_job ? std::stod(get("scale", "1")) : 1.0;
  }
  o.logreg = false;
  const ComputeRange compute = parse_compute_range(get("compute-ms", "0"));
  o.compute_min_ms = compute.min_ms;
  o.compute_max_ms = compute.max_ms;
  o.seed = std::stoull(get("seed", "1"));
  // "none": WSP with no delta (its choices alone decide); SSP without one is async.
  const std::string staleness = get("staleness", std::to_string(TrainingSetup::kDefaultStaleness));
  o.staleness = staleness == "none" ? TrainingSetup::kNoBound : std::stoi(staleness);
  o.servers = get("servers", "all");
  o.worker_nodes = get("workers", "all");
  // Gaia's data centers each run workers beside their full replica.
  if (o.worker_nodes != "all" && gaia)
    throw UsageError("--workers is not for gaia: every data center runs workers");
  const std::string target = get("target-loss", "");
  if (!target.empty()) o.target_loss = std::stod(target);
  const std::string budget = get("max-seconds", "");
  o.max_seconds = budget.empty() ? 0 : std::stod(budget);
  o.eval_every_s = std::stod(get("eval-every", kDefaultEvalEvery));
  o.json = args.flag("json");
  o.workers_per_dc = std::stoi(get("workers-per-dc", "1"));
  o.target_rule = get("target-rule", "share");
  if (const std::string slow = get("slow-dc", ""); !slow.empty()) o.slow = parse_slowdowns(slow);
  if (const std::string s = get("stragglers", ""); !s.empty()) o.stragglers = parse_stragglers(s);
  o.compute_on_cpu = get("compute-as", "wait") == "cpu";
  if (o.compute_on_cpu && gaia)
    throw UsageError(
        "--compute-as cpu is not built for gaia (its local workers keep clocks of "
        "their own); gaia's compute is waited");
  if (gaia) {
    std::string why;
    o.gaia_threshold = parse_percent(get("gaia-threshold", "1%"), why)->value;
    const std::string ds = get("gaia-ds", "2");
    o.gaia_ds = ds == "off" ? -1 : std::stoi(ds);
    o.gaia_soft = get("gaia-soft", "off") == "on";
    const std::string local = get("gaia-local", "bsp");
    o.gaia_local_staleness = local == "bsp" ? -1 : std::stoi(local.substr(4));  // ssp:S
    o.gaia_groups = get("gaia-groups", "auto");
    o.gaia_partition = get("gaia-partition", "continue");
  }
  // Gaia's t counts passes (IterStore's and Bösen's iterations, docs/gaia.md); every other
  // strategy keeps the job's clocks unless told, and a Gaia profile says `gaia-t` in its
  // workload so that its Baseline trains the same job.
  o.t_in_passes = get("gaia-t", t.clocks_in_passes ? "pass" : "clock") == "pass";
  // drps: the disk-resident servers under the parallel model --parallel names; the other
  // strategies are their own model.
  const bool drps = t.consistency.empty();  // --parallel chooses
  if (!drps && args.option("parallel"))
    throw UsageError("--parallel is for drps; " + o.strategy + " is its own parallel model");
  // MLfabric-A's server is asynchronous (its scheduler bounds the delays); MLfabric-S's is
  // synchronous, and so are RR-Sync and Tr-Sync, BSP's model without a server.
  o.consistency = drps ? get("parallel", "bsp") : t.consistency;
  if (t.scheduled()) {
    const std::string aggregators = get("aggregators", "all");  // one on every worker's node
    o.aggregators = aggregators == "all" ? -1 : std::stoi(aggregators);
  }
  if (t.scheduled()) {
    const std::string distribution = get("distribution", "on");
    if (distribution != "on" && distribution != "off")
      throw UsageError("--distribution: expected on or off, got '" + distribution + "'");
    o.distribution = distribution == "on";
  } else if (args.option("distribution")) {
    throw UsageError("--distribution is for mlfabric-a and mlfabric-s, not " + o.strategy);
  }
  if (t.scheduled()) {
    const std::string monitor = get("monitor", "plan");
    if (monitor != "plan" && monitor != "arrivals")
      throw UsageError("--monitor: expected plan or arrivals, got '" + monitor + "'");
    o.monitor_arrivals = monitor == "arrivals";
  } else if (args.option("monitor")) {
    throw UsageError("--monitor is for mlfabric-a and mlfabric-s, not " + o.strategy);
  }
  const bool bounded_delay = t.scheduling == Scheduling::kBoundedDelay;
  if (bounded_delay) {
    const std::string bound = get("delay-bound", "");  // none: one version per worker
    o.delay_bound = bound.empty() ? 0 : std::stoi(bound);
    o.replica = get("replica", "");
    const std::string div_max = get("div-max", "");  // none: one update per worker
    if (!div_max.empty() && o.replica.empty())
      throw UsageError("--div-max bounds a replica's divergence: name it with --replica NODE");
    o.div_max = div_max.empty() ? -1 : std::stoi(div_max);
    // Sec. 7.3's alternative to the replica: checkpoints, loaded by a standby on failure.
    o.standby = get("standby", "");
    const std::string every = get("checkpoint-every", "");
    if (every.empty() != o.standby.empty())
      throw UsageError(
          "--checkpoint-every and --standby go together: the server's checkpoints, and the "
          "node that loads the last one when the server dies");
    if (!o.standby.empty() && !o.replica.empty())
      throw UsageError(
          "--standby (checkpoints) or --replica (a hot standby), not both: they are the "
          "paper's two ways to survive the server's death (Sec. 7.3)");
    o.checkpoint_every = every.empty() ? 0 : std::stoi(every);
  }
  // MLfabric-S drops nothing and replicates nothing: the paper evaluates neither for it.
  for (const char* key : {"delay-bound", "replica", "div-max", "standby", "checkpoint-every"})
    if (!bounded_delay && args.option(key))
      throw UsageError(std::string("--") + key + " is for mlfabric-a, not " + o.strategy);
  if (!t.scheduled() && args.option("aggregators"))
    throw UsageError("--aggregators is for mlfabric-a and mlfabric-s, not " + o.strategy);
  o.store = get("store", t.disk_store ? "disk" : "memory");
  o.memory_budget_mb = std::stoi(get("memory-budget-mb", "1"));
  if (t.disk_store && o.store != "disk")
    throw UsageError(
        "--store memory: drps keeps its parameters on disk (for the in-memory "
        "server, --strategy bsp, ssp or async)");
  if (o.store != "memory" && !t.store_choice)
    throw UsageError("--store disk is for bsp, ssp, async and drps, not " + o.strategy);
  o.index = get("index", "off") == "on";
  o.index_k = std::stoi(get("index-k", "50"));
  o.index_prune = std::stod(get("index-prune", "0.9"));
  o.partition = get("partition", "off") == "on";
  // Alg. 3 places the blocks a job's batches read; a dense job reads every key each clock.
  if (o.partition &&
      make_job({o.job, o.seed, 1, o.scale, o.job_parameters}, 0)->keys_for(0).empty())
    throw UsageError("--partition: " + o.job + " reads every key each clock (dense); " +
                     "partitioning places the keys of sparse batches (sparse-lr, lmf, mf)");
  if (o.staleness == TrainingSetup::kNoBound && o.consistency != "wsp")
    throw UsageError(
        "--staleness none is for WSP (--parallel wsp); SSP without a bound is "
        "--parallel async");
  for (const char* disk_only : {"memory-budget-mb", "index", "index-k", "index-prune", "partition"})
    if (args.option(disk_only) && o.store != "disk")
      throw UsageError("--" + std::string(disk_only) + " is for --store disk");
  for (const char* gaia_only :
       {"gaia-threshold", "gaia-ds", "gaia-soft", "gaia-local", "gaia-groups", "gaia-partition"})
    if (!gaia && args.option(gaia_only))
      throw UsageError("--" + std::string(gaia_only) + " is for gaia, not " + o.strategy);
  for (const char* tree_only : {"chunk", "update-time", "primary-busy-bound", "aux-queue-length",
                                "probe-count", "probe-bytes", "probe-link"}) {
    if (args.option(tree_only))
      throw UsageError("--" + std::string(tree_only) + " is for the tree strategies, not " +
                       o.strategy);
  }
  if (args.flag("oracle") || args.flag("probe-only"))
    throw UsageError("--oracle and --probe-only are for the tree strategies, not " + o.strategy);
  if (!t.options.empty()) {
    std::map<std::string, std::string> given;
    for (const auto& spec : t.options)
      if (const std::string v = get(spec.name, ""); !v.empty()) given[spec.name] = v;
    o.policy = option_values(t.options, given);
  }
  return o;
}

}  // namespace

TrainOptions resolve_train_options(const CommandLine& args, const nlohmann::json& workload) {
  // Command line first, then the profile, then the default; values from either are
  // checked the same way and errors say where the value came from.
  const auto get = [&](const std::string& key, const std::string& fallback) {
    std::string value = fallback, origin = "default";
    if (auto v = args.option(key)) {
      value = *v;
      origin = "--" + key;
    } else if (workload.contains(key)) {
      value = workload[key].get<std::string>();
      origin = "the profile's workload." + key;
    }
    if (origin == "default" && value.empty()) return value;  // computed later
    const std::string why = check_workload_setting(key, value);
    if (!why.empty()) throw UsageError(origin + " '" + value + "': " + why);
    return value;
  };
  TrainOptions o;
  std::tie(o.strategy, o.server) = split_placed(get("strategy", "netstorm"));
  if (const std::string server = get("server", ""); !server.empty()) {
    if (!o.server.empty() && o.server != server)
      throw UsageError("--server " + server + " and the strategy's @" + o.server + " disagree");
    o.server = server;
  }
  const StrategyTraits* traits = find_strategy(o.strategy);
  if (traits == nullptr)  // check_workload_setting refused it already; kept for the reader
    throw UsageError("unknown strategy '" + o.strategy + "'");
  if (!o.server.empty() && !traits->at_node)
    throw UsageError("--server is for ps and the placement strategies, not " + o.strategy);
  o.iterations = std::stoi(get("iterations", std::to_string(kDefaultIterations)));
  o.ps = traits->ps();
  // Another system's own option on the command line is refused, naming its system; a
  // profile's key is not (one workload serves several strategies).
  for (const auto& [key, value] : args.options)
    if (const StrategyTraits* owner = option_owner(key);
        owner != nullptr && find_option(*traits, key) == nullptr)
      throw UsageError("--" + key + " is for " + owner->name + ", not " + o.strategy);
  for (const char* ps_only : {"store", "memory-budget-mb", "index", "index-k", "index-prune",
                              "partition", "stragglers", "workers"})
    if (!o.ps && args.option(ps_only))
      throw UsageError("--" + std::string(ps_only) +
                       " is for the parameter-server strategies (bsp, ssp, async, drps), not " +
                       o.strategy);
  if (traits->kind == StrategyKind::kPlacement) return resolve_placement_options(args, get, o);
  for (const char* placement_only : {"apsp-mode", "capacity", "draws"})
    if (args.option(placement_only))
      throw UsageError("--" + std::string(placement_only) + " is for the placement strategies");
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
  const std::string model = get("model", "resnet50");
  if (is_job(model) && model != "logreg")
    throw UsageError("the " + model + " job runs on the parameter-server strategies (" +
                     "--strategy bsp, ssp, async or drps)");
  // logreg: the real training job, small and exact to check; the others are model sizes.
  o.logreg = model == "logreg";
  o.model = o.logreg ? ModelProfile{"logreg", 0} : find_model(model);
  // 0.1 of ResNet-50 is 9.2 MB: an iteration takes seconds, not minutes, on 20-155 Mbit/s.
  o.scale = std::stod(get("scale", "0.1"));
  const ComputeRange compute = parse_compute_range(get("compute-ms", "0"));
  o.compute_min_ms = compute.min_ms;
  o.compute_max_ms = compute.max_ms;
  const std::string chunk = get("chunk", "");
  o.chunk = chunk.empty() ? 0 : static_cast<uint32_t>(std::stoul(chunk));
  o.seed = std::stoull(get("seed", "1"));
  // UPDATE_TIME (Table II: 5 s): how often the scheduler rebuilds an aware strategy's trees.
  o.update_time_s = std::stod(get("update-time", "5"));
  const std::string budget = get("max-seconds", "");
  o.max_seconds = budget.empty() ? 0 : std::stod(budget);
  const auto knob = [&](const std::string& name, int fallback) {
    const int v = std::stoi(get(name, std::to_string(fallback)));
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
