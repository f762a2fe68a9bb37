// testbed train [LAB] --strategy NAME [--iterations N] [--model M] [--scale S]
//               [--compute-ms MS] [--chunk ELEMENTS] [--seed N] [--oracle] [--json]
// Runs data-parallel synchronization on a lab that is up: one agent per node, each
// iteration every node's gradient summed over the strategy's trees.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "agent_group.h"
#include "args.h"
#include "awareness.h"
#include "commands.h"
#include "lab_state.h"
#include "link_control.h"
#include "logistic_regression.h"
#include "netns_exec.h"
#include "strategies.h"
#include "teardown.h"
#include "workload.h"

namespace testbed::cli {
namespace {

constexpr int kAgentPort = 7100;  // each agent's ROUTER, on its node's own address
// NetStorm's probe settings (Table II): PROBE_CHUNK_NUM 4 chunks measured; two more lead
// the train because TCP's slow start distorts the first ones. 1 MiB keeps the run short.
constexpr uint32_t kProbeCount = 6;
constexpr size_t kProbeBytes = 1 << 20;
constexpr int kSamplesPerNode = 32;  // batch size per data center (NetStorm Sec. IX-A)

struct ProbeOnly {};  // ends a --probe-only run after the measurement

nlohmann::json policy_json(const SyncPolicy& p) {
  nlohmann::json trees = nlohmann::json::array();
  for (const auto& t : p.trees)
    trees.push_back({{"root", t.root}, {"parent", t.parent}, {"share", t.share}});
  return {{"strategy", p.strategy}, {"version", p.version}, {"trees", trees}};
}

}  // namespace

int run_train(const Argv& argv) {
  const std::string usage =
      "testbed train [LAB] --strategy ps|bkt|mst|fapt|netstorm-lite|netstorm-std|netstorm "
      "[--iterations N] [--model M|logreg] "
      "[--scale S] [--compute-ms MS] [--chunk ELEMENTS] [--seed N] [--update-time T] [--oracle] "
      "[--json] "
      "[--probe-only] [--probe-link A:B] [--probe-count N] [--probe-bytes B]";
  Args args(argv, {"json", "oracle", "probe-only"},
            {"strategy", "iterations", "model", "scale", "compute-ms", "chunk", "seed",
             "update-time", "probe-count", "probe-bytes", "probe-link"});
  args.at_most(1, usage);
  const auto strategy = args.option("strategy");
  if (!strategy) throw UsageError("--strategy is required; usage: " + usage);
  if (std::find(strategy_names().begin(), strategy_names().end(), *strategy) ==
      strategy_names().end()) {
    throw UsageError("unknown strategy '" + *strategy +
                     "' (ps, bkt, mst, fapt, netstorm-lite, netstorm-std or netstorm)");
  }
  const int iterations = std::stoi(args.option("iterations").value_or("10"));
  const std::string model_name = args.option("model").value_or("resnet50");
  // logreg: the real training job, small and exact to check; the others are model sizes.
  const bool logreg = model_name == "logreg";
  const ModelProfile model = logreg ? ModelProfile{"logreg", 0} : find_model(model_name);
  // 0.1 of ResNet-50 is 9.2 MB: an iteration takes seconds, not minutes, on 20-155 Mbit/s.
  const double scale = std::stod(args.option("scale").value_or("0.1"));
  const int compute_ms = std::stoi(args.option("compute-ms").value_or("0"));
  // 256 Ki elements (1 MiB) per chunk: NetStorm recommends 0.5-1 M for full models; scaled
  // models need smaller chunks to give every root of a multi-root tree its share.
  const uint32_t chunk = static_cast<uint32_t>(std::stoul(args.option("chunk").value_or("262144")));
  const uint64_t seed = std::stoull(args.option("seed").value_or("1"));
  // UPDATE_TIME (Table II: 5 s): how often the scheduler rebuilds an aware strategy's trees.
  const double update_time = std::stod(args.option("update-time").value_or("5"));
  // The start-of-run measurement, adjustable for benchmarks: --probe-only stops after it,
  // --probe-link A:B measures that one direction alone.
  const uint32_t probe_count = static_cast<uint32_t>(
      std::stoul(args.option("probe-count").value_or(std::to_string(kProbeCount))));
  const size_t probe_bytes =
      std::stoul(args.option("probe-bytes").value_or(std::to_string(kProbeBytes)));
  const std::string probe_link = args.option("probe-link").value_or("");
  if (probe_count < 3) throw UsageError("--probe-count must be at least 3 (two lead the train)");
  LogRegConfig job;
  job.seed = 0;  // set below, once the seed is known
  const auto elements = logreg ? static_cast<size_t>(job.features) + 1
                               : static_cast<size_t>(static_cast<double>(model.parameters) * scale);
  if (iterations < 1 || elements == 0 || chunk == 0)
    throw UsageError("nothing to run; usage: " + usage);
  if (lacks_privileges("train")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(args.positional(0));
  const std::string dir = store.dir(lab);
  LabState state = store.load(lab);
  if (state.phase != "up")
    throw std::runtime_error("lab " + lab + " is " + state.phase + ", not up");
  std::vector<std::string> names, namespaces, endpoints;
  for (const auto& n : state.plan["nodes"]) {
    names.push_back(n["name"]);
    namespaces.push_back(n["namespace"]);
    endpoints.push_back("tcp://" + n["address"].get<std::string>() + ":" +
                        std::to_string(kAgentPort));
  }
  const bool quiet = args.flag("json");
  std::ostream& progress = quiet ? std::cerr : std::cout;

  zmq::context_t ctx;
  const std::string socket_path = dir + "/agents.sock";
  AgentGroup agents(ctx, socket_path, names);
  std::vector<pid_t> pids;
  {
    auto lock = store.lock(lab, /*wait=*/true);
    state = store.load(lab);
    for (size_t n = 0; n < names.size(); ++n) {
      const std::vector<std::string> cmd = {program_path("testbed-agent"), "--control",
                                            "ipc://" + socket_path, "--node", std::to_string(n)};
      const pid_t pid = spawn_in_netns(namespaces[n], cmd, dir + "/agent-" + names[n] + ".log");
      state.processes.push_back({pid, process_start_time(pid), names[n], cmd});
      pids.push_back(pid);
    }
    store.save(state);
  }
  agents.set_pids(pids);
  int status = kExitOk;
  try {
    agents.gather("hello");
    job.seed = seed;
    job.nodes = static_cast<int>(names.size());
    nlohmann::json setup = {{"cmd", "setup"},
                            {"endpoints", endpoints},
                            {"chunk_elements", chunk},
                            {"model_elements", elements},
                            {"seed", seed}};
    if (logreg) {
      setup["job"] = "logreg";
      setup["nodes"] = job.nodes;
      setup["features"] = job.features;
      setup["samples_per_node"] = job.samples_per_node;
      setup["learning_rate"] = job.learning_rate;
    }
    // Each node learns its physical in-neighbours: chunks from them measure a link. Chunks of
    // at least half the standard size count (PROBE_CHUNK_SIZE): the short tail chunk and
    // tiny tensors would measure message overheads rather than the link.
    const auto directions = live_directions(state.plan, read_current(dir));
    const auto index = [&](const std::string& name) {
      return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    std::vector<std::vector<int>> to(names.size()), from(names.size());
    for (const auto& d : directions) {
      to[static_cast<size_t>(index(d.from))].push_back(index(d.to));
      from[static_cast<size_t>(index(d.to))].push_back(index(d.from));
    }
    for (size_t n = 0; n < names.size(); ++n) {
      setup["neighbors"] = from[n];
      setup["probe_bytes"] = strategy_is_aware(*strategy) ? chunk * sizeof(float) / 2 : 0;
      agents.send(n, setup);
    }
    agents.gather("ready");

    // What the strategy knows of the network: measured now, or (--oracle, for debugging)
    // the rates the profile configured.
    ThroughputGraph graph;
    graph.nodes = static_cast<int>(names.size());
    graph.mbit.assign(names.size(), std::vector<double>(names.size(), 0));
    if (args.flag("oracle")) {
      for (const auto& d : directions)
        graph.mbit[index(d.from)][index(d.to)] = d.params.rate.bits_per_s / 1e6;
    } else {
      if (!probe_link.empty()) {
        const auto colon = probe_link.find(':');
        const int a = index(probe_link.substr(0, colon)), b = index(probe_link.substr(colon + 1));
        if (colon == std::string::npos || a >= graph.nodes || b >= graph.nodes ||
            std::find(to[static_cast<size_t>(a)].begin(), to[static_cast<size_t>(a)].end(), b) ==
                to[static_cast<size_t>(a)].end()) {
          throw UsageError("--probe-link " + probe_link +
                           ": expected A:B, two nodes joined by a link");
        }
        for (auto& v : to) v.clear();
        for (auto& v : from) v.clear();
        to[static_cast<size_t>(a)] = {b};
        from[static_cast<size_t>(b)] = {a};
      }
      for (size_t n = 0; n < names.size(); ++n) {
        agents.send(n, {{"cmd", "probe"},
                        {"to", to[n]},
                        {"from", from[n]},
                        {"bytes", probe_bytes},
                        {"count", probe_count}});
      }
      const auto probed = agents.gather("probed");
      for (size_t n = 0; n < names.size(); ++n) {
        for (const auto& [peer, mbit] : probed[n]["mbit"].items())
          graph.mbit[std::stoi(peer)][n] = mbit;
      }
    }
    if (args.flag("probe-only")) {
      std::cout << nlohmann::json{{"lab", lab}, {"link_mbit", graph.mbit}, {"nodes", names}}.dump()
                << "\n";
      throw ProbeOnly{};
    }
    SyncPolicy policy = build_policy(*strategy, graph);
    policy.version = 1;
    PassiveAwareness awareness(policy, update_time);

    std::vector<double> times, losses;
    nlohmann::json last_done;
    for (int it = 0; it < iterations; ++it) {
      const auto start = std::chrono::steady_clock::now();
      agents.broadcast({{"cmd", "iterate"},
                        {"iteration", it},
                        {"compute_ms", compute_ms},
                        {"policy", policy_json(policy)}});
      const auto done = agents.gather("done");
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (size_t n = 1; n < done.size(); ++n) {
        if (done[n]["checksum"] != done[0]["checksum"]) {
          throw std::runtime_error("nodes " + names[0] + " and " + names[n] +
                                   " disagree on the model after iteration " + std::to_string(it));
        }
      }
      times.push_back(seconds);
      if (strategy_is_aware(*strategy)) {
        for (size_t n = 0; n < done.size(); ++n) {
          awareness.add_samples(static_cast<int>(n), done[n]["link_samples"], graph);
        }
        if (auto next = awareness.maybe_rebuild(graph, policy)) policy = *next;
      }
      last_done = done;
      double loss = 0;
      if (logreg) {
        for (const auto& d : done) loss += d["job"]["loss"].get<double>();
        losses.push_back(loss / static_cast<double>(done.size()));
      }
      progress << "iteration " << it + 1 << "/" << iterations << "  " << *strategy << " (policy v"
               << policy.version << ")  " << std::fixed << std::setprecision(2) << seconds << " s  "
               << std::setprecision(1) << kSamplesPerNode * names.size() / seconds << " samples/s\n"
               << std::flush;
    }
    double mean = 0;
    for (double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    nlohmann::json summary = {
        {"lab", lab},
        {"strategy", *strategy},
        {"iterations", iterations},
        {"mean_iteration_s", mean},
        {"samples_per_s", kSamplesPerNode * names.size() / mean},
        {"iteration_s", times},
        {"model", model.name},
        {"model_bytes", elements * sizeof(float)},
        {"chunk_elements", chunk},
        {"knowledge", args.flag("oracle") ? "oracle (configured rates)" : "measured"},
        {"link_mbit", graph.mbit},
        {"policy", policy_json(policy)}};
    nlohmann::json per_node = nlohmann::json::object();
    for (size_t n = 0; n < names.size(); ++n) {
      per_node[names[n]] = {{"bytes_sent", last_done[n]["bytes_sent"]},
                            {"bytes_received", last_done[n]["bytes_received"]}};
    }
    summary["nodes"] = per_node;
    if (logreg) {
      // Every node holds the same weights (the checksums agreed); they must match a
      // single-process run. Each tree adds the nodes' float gradients in its own order, so
      // they differ from the double-precision reference by rounding only: 1e-4 bounds it
      // for this job's magnitudes and iteration counts.
      const auto reference = reference_training(job, iterations);
      const auto weights = last_done[0]["job"]["weights"].get<std::vector<float>>();
      double max_diff = 0;
      for (size_t i = 0; i < weights.size(); ++i) {
        max_diff = std::max(max_diff, std::fabs(static_cast<double>(weights[i]) - reference[i]));
      }
      summary["loss"] = losses;
      summary["reference_max_abs_diff"] = max_diff;
      if (max_diff > 1e-4) {
        throw std::runtime_error("the model differs from the single-process reference by " +
                                 std::to_string(max_diff));
      }
    }
    std::filesystem::create_directories(dir + "/runs");
    const std::string results = dir + "/runs/" + now_iso8601() + "-" + *strategy + ".json";
    std::ofstream(results) << summary.dump(1) << "\n";
    if (quiet) {
      std::cout << summary.dump() << "\n";
    } else {
      std::cout << *strategy << ": " << iterations << " iterations of " << model.name << " x"
                << std::defaultfloat << scale << std::fixed << " (" << std::setprecision(1)
                << elements * 4 / 1e6 << " MB), mean " << std::setprecision(2) << mean
                << " s per iteration, " << std::setprecision(1)
                << kSamplesPerNode * names.size() / mean << " samples/s; results in " << results
                << "\n";
    }
  } catch (const ProbeOnly&) {
    // measured and printed: nothing to train
  } catch (const std::exception& e) {
    std::cerr << "testbed train: " << e.what() << "\n";
    status = kExitFailure;
  }
  // Stop the agents and forget them; `down` would end them too.
  agents.broadcast({{"cmd", "quit"}});
  // They are our children: reap them, so none lingers as a zombie.
  for (size_t n = 0; n < pids.size(); ++n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (waitpid(pids[n], nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  {
    auto lock = store.lock(lab, /*wait=*/true);
    LabState s = store.load(lab);
    std::erase_if(s.processes, [&](const ProcessRecord& p) {
      if (std::find(pids.begin(), pids.end(), p.pid) == pids.end()) return false;
      if (process_start_time(p.pid) == p.start_time) {  // did not quit in time
        kill(p.pid, SIGKILL);
        waitpid(p.pid, nullptr, 0);
      }
      return true;
    });
    store.save(s);
  }
  return status;
}

}  // namespace testbed::cli
