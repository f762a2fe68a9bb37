#include "controller/topology/topology_parser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "controller/topology/address_plan.h"
#include "controller/topology/burst_loss_parser.h"
#include "controller/topology/comma_list.h"
#include "controller/topology/cross_traffic_parser.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/node_churn.h"
#include "controller/topology/node_compute.h"
#include "controller/topology/node_events.h"
#include "controller/topology/partitions.h"
#include "controller/topology/schedule.h"
#include "controller/topology/straggler.h"
#include "controller/topology/yaml_diagnostics.h"

namespace testbed {
namespace {

// Lab and node names become namespace and interface names, so they keep to the characters
// that are safe in both. 24 and 32 characters keep "tb-LAB-NODE" readable in `ip netns`.
const std::regex kLabName("[a-z0-9][a-z0-9-]{0,23}");
const std::regex kNodeName("[a-z0-9][a-z0-9_-]{0,31}");

const std::vector<std::string> kTopKeys = {"lab",      "pool",       "routing", "backend",
                                           "seed",     "defaults",   "nodes",   "links",
                                           "workload", "partitions", "reroute", "cross_traffic"};
// Longer than a minute is no convergence but an outage: a schedule says that better.
constexpr int64_t kMaxConvergenceUs = 60 * 1000000;

const std::vector<std::string> kParamKeys = {"bandwidth", "delay",   "jitter",  "loss",
                                             "queue",     "reorder", "schedule"};
const std::vector<std::string> kLinkKeys = {"endpoints", "bandwidth", "delay",    "jitter", "loss",
                                            "queue",     "reorder",   "schedule", "a2b",    "b2a"};

// Link parameters as written at one level (defaults, link, or one direction).
struct ParamsLayer {
  bool rate_written = false;  // a bandwidth or schedule key was present, even if it was bad
  std::optional<Rate> rate;
  std::optional<Duration> delay, jitter;
  std::optional<Fraction> loss;
  std::optional<GilbertElliott> burst_loss;
  std::optional<QueueSize> queue;
  std::optional<bool> reorder;
  std::optional<Schedule> schedule;
};

class Parser {
 public:
  Parser(std::string file, const SettingRules& workload)
      : workload_(workload),
        file_(std::move(file)),
        dir_(std::filesystem::path(file_).parent_path().string()),
        diag_(file_) {}

  Topology run(const YAML::Node& root) {
    Topology topo;
    topo.source_file = file_;
    if (!root.IsMap()) {
      error(root, "the file must be a mapping with keys lab, nodes and links");
      finish();
    }
    check_keys(root, kTopKeys, "at the top level");
    parse_lab(root, topo);
    if (root["pool"]) parse_pool(root["pool"], topo);
    if (root["routing"]) parse_routing(root["routing"], topo);
    if (root["backend"]) parse_backend(root["backend"], topo);
    if (root["reroute"]) parse_reroute(root["reroute"], topo);
    if (root["seed"]) {
      try {
        topo.seed = root["seed"].as<uint64_t>();
      } catch (const YAML::Exception&) {
        error(root["seed"], "seed: expected a whole number");
      }
    }
    seed_ = topo.seed;
    if (root["workload"]) parse_workload(root["workload"], topo);
    ParamsLayer defaults;
    if (root["defaults"]) defaults = parse_layer(root["defaults"], kParamKeys, "in defaults");
    parse_nodes(root, topo);
    if (root["links"]) parse_links(root["links"], defaults, topo);
    // Connectivity is judged only when every link was understood; otherwise a link with a
    // typo would also be reported as an island.
    if (links_complete_) check_connected(topo);
    // Partitions name nodes and cut links: read once both are whole.
    if (root["partitions"] && links_complete_ && diag_.empty()) {
      parse_partitions(root["partitions"], topo,
                       [this](const YAML::Node& at, const std::string& m) { error(at, m); });
    }
    if (root["cross_traffic"] && links_complete_) {
      std::vector<std::string> names;
      for (const auto& n : topo.nodes) names.push_back(n.name);
      topo.cross_traffic =
          parse_cross_traffic(root["cross_traffic"], names, topo.seed,
                              [this](const YAML::Node& at, const std::string& m) { error(at, m); });
    }
    if (diag_.empty()) {
      if (auto why = address_pool_shortfall(topo); !why.empty()) {
        error(root["pool"] ? root["pool"] : root, why);
      }
    }
    finish();
    return topo;
  }

 private:
  void error(const YAML::Node& at, const std::string& message) { diag_.error(at, message); }
  void finish() { diag_.finish(); }
  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                  const std::string& where) {
    diag_.check_keys(map, allowed, where);
  }
  bool scalar(const YAML::Node& n, const std::string& what, std::string& out) {
    return diag_.scalar(n, what, out);
  }

  template <typename T, typename ParseFn>
  std::optional<T> value(const YAML::Node& n, const std::string& field, ParseFn parse) {
    std::string text, why;
    if (!scalar(n, field, text)) return std::nullopt;
    auto v = parse(text, why);
    if (!v) error(n, field + ": " + why);
    return v;
  }

  void parse_lab(const YAML::Node& root, Topology& topo) {
    if (!root["lab"]) {
      error(root, "missing required key 'lab' (the lab's name)");
      return;
    }
    if (!scalar(root["lab"], "lab", topo.lab)) return;
    if (!std::regex_match(topo.lab, kLabName)) {
      error(root["lab"], "lab: '" + topo.lab +
                             "' must be 1-24 characters of a-z, 0-9 and '-', starting with a "
                             "letter or digit");
    }
  }

  void parse_pool(const YAML::Node& n, Topology& topo) {
    std::string text;
    if (!scalar(n, "pool", text)) return;
    auto p = Ipv4Prefix::parse(text);
    if (!p) {
      error(n, "pool: '" + text + "' is not a network prefix like 198.18.0.0/15");
      return;
    }
    topo.pool = *p;
  }

  void parse_routing(const YAML::Node& n, Topology& topo) {
    std::string text;
    if (!scalar(n, "routing", text)) return;
    if (text == "hops") {
      topo.metric = RouteMetric::kHops;
    } else if (text == "delay") {
      topo.metric = RouteMetric::kDelay;
    } else {
      error(n, "routing: '" + text + "' must be 'hops' or 'delay'");
    }
  }

  // reroute: {} or {convergence: D}: routes converge around dead links (topology.h).
  void parse_reroute(const YAML::Node& n, Topology& topo) {
    if (!n.IsMap() && !n.IsNull()) {
      error(n, "reroute: expected a mapping, {} or {convergence: 300ms}");
      return;
    }
    topo.reroute_convergence_us = kDefaultConvergenceUs;
    if (n.IsNull()) return;
    check_keys(n, {"convergence"}, "in reroute");
    if (!n["convergence"]) return;
    const auto d = value<Duration>(n["convergence"], "reroute.convergence", parse_duration);
    if (d && d->us > kMaxConvergenceUs) {
      error(n["convergence"], "reroute.convergence: at most 60s");
    } else if (d) {
      topo.reroute_convergence_us = d->us;
    }
  }

  // The words and checks are the run options' (SettingRules), so a profile cannot hold a
  // workload the command would refuse, and the topology knows no strategy by name.
  void parse_workload(const YAML::Node& n, Topology& topo) {
    if (!n.IsMap()) {
      error(n, "workload: expected a mapping of " + comma_list(workload_.keys));
      return;
    }
    check_keys(n, workload_.keys, "in workload");
    for (const auto& key : workload_.keys) {
      if (!n[key]) continue;
      std::string text;
      if (!scalar(n[key], "workload." + key, text)) continue;
      const std::string why = workload_.check(key, text);
      if (why.empty()) {
        topo.workload[key] = text;
      } else {
        error(n[key], "workload." + key + ": " + why);
      }
    }
  }

  void parse_backend(const YAML::Node& n, Topology& topo) {
    std::string text;
    if (!scalar(n, "backend", text)) return;
    if (const auto b = parse_backend_name(text)) {
      topo.backend = *b;
    } else {
      error(n, "backend: '" + text + "' must be 'auto', 'netem' or 'delayline'");
    }
  }

  ParamsLayer parse_layer(const YAML::Node& n, const std::vector<std::string>& keys,
                          const std::string& where) {
    ParamsLayer layer;
    if (!n.IsMap()) {
      error(n, "expected a mapping " + where);
      return layer;
    }
    check_keys(n, keys, where);
    layer.rate_written = n["bandwidth"] || n["schedule"];
    if (n["bandwidth"]) layer.rate = value<Rate>(n["bandwidth"], "bandwidth", parse_rate);
    if (n["delay"]) layer.delay = value<Duration>(n["delay"], "delay", parse_duration);
    if (n["jitter"]) layer.jitter = value<Duration>(n["jitter"], "jitter", parse_duration);
    if (n["loss"] && n["loss"].IsMap()) {
      layer.burst_loss = parse_burst_loss(
          n["loss"], [this](const YAML::Node& at, const std::string& m) { error(at, m); });
    } else if (n["loss"]) {
      layer.loss = value<Fraction>(n["loss"], "loss", parse_percent);
    }
    if (n["queue"]) layer.queue = value<QueueSize>(n["queue"], "queue", parse_queue_size);
    if (n["reorder"]) {
      try {
        layer.reorder = n["reorder"].as<bool>();
      } catch (const YAML::Exception&) {
        error(n["reorder"], "reorder: expected true or false");
      }
    }
    if (n["schedule"]) {
      layer.schedule = parse_schedule(
          n["schedule"], dir_, seed_,
          [&](const YAML::Node& at, const std::string& m) { error(at, m); }, diag_.list());
    }
    return layer;
  }

  void parse_nodes(const YAML::Node& root, Topology& topo) {
    const YAML::Node nodes = root["nodes"];
    if (!nodes) {
      error(root, "missing required key 'nodes'");
      return;
    }
    if (!nodes.IsMap() || nodes.size() == 0) {
      error(nodes, "nodes: expected a mapping of node names, e.g. 'seattle: {}'");
      return;
    }
    std::map<std::string, int> first_line;
    for (auto it = nodes.begin(); it != nodes.end(); ++it) {
      const std::string name = it->first.Scalar();
      if (!std::regex_match(name, kNodeName)) {
        error(it->first, "node '" + name +
                             "': a name must be 1-32 characters of a-z, 0-9, '-' and '_', "
                             "starting with a letter or digit");
      }
      const int line = it->first.Mark().line + 1;
      if (auto [pos, fresh] = first_line.emplace(name, line); !fresh) {
        error(it->first, "duplicate node '" + name + "' (first defined on line " +
                             std::to_string(pos->second) + ")");
        continue;
      }
      Node node{name, {line, it->first.Mark().column + 1}, {}, {}, {}};
      if (!it->second.IsNull() && !(it->second.IsMap() && it->second.size() == 0)) {
        if (it->second.IsMap()) {
          std::vector<std::string> keys = kComputeKeys;
          keys.push_back("schedule");
          keys.push_back("straggler");
          keys.push_back("churn");
          check_keys(it->second, keys, "in node '" + name + "'");
          const YamlErrorSink sink = [this](const YAML::Node& at, const std::string& m) {
            error(at, m);
          };
          if (it->second["schedule"])
            node.schedule = parse_node_schedule(it->second["schedule"], name, sink);
          if (it->second["churn"]) add_churn(it->second["churn"], name, topo.seed, node);
          node.compute = parse_node_compute(it->second, name, sink);
          if (it->second["straggler"])
            node.straggler =
                parse_straggler(it->second["straggler"], name, node.compute.cpus, topo.seed, sink);
        } else {
          error(it->second,
                "node '" + name + "': expected a mapping, {} or {cpus: 0.5, schedule: [...]}");
        }
      }
      topo.nodes.push_back(std::move(node));
    }
  }

  // A node's churn (node_churn.h) is its leaves and joins: its schedule may not have its
  // own, nor a crash (after which it could not join), or which one rules would be unclear.
  void add_churn(const YAML::Node& at, const std::string& name, uint64_t seed, Node& node) {
    const YamlErrorSink sink = [this](const YAML::Node& n, const std::string& m) { error(n, m); };
    const auto model = parse_node_churn(at, name, seed, sink);
    if (!model) return;
    for (const auto& ev : node.schedule)
      if (ev.kind == NodeEvent::Kind::kLeave || ev.kind == NodeEvent::Kind::kJoin ||
          ev.kind == NodeEvent::Kind::kCrash || ev.kind == NodeEvent::Kind::kRestart) {
        error(at, "node '" + name + "' churn: its schedule has a " + node_event_name(ev.kind) +
                      " at line " + std::to_string(ev.pos.line) +
                      ": leaves and joins come from one or the other");
        return;
      }
    const auto events = churn_events(*model, name, {at.Mark().line + 1, at.Mark().column + 1});
    node.schedule.insert(node.schedule.end(), events.begin(), events.end());
    std::stable_sort(node.schedule.begin(), node.schedule.end(),
                     [](const NodeEvent& a, const NodeEvent& b) { return a.at_us < b.at_us; });
  }

  // Every node must reach every other; an island is almost always a typo in the links.
  void check_connected(const Topology& topo) {
    std::vector<size_t> parent(topo.nodes.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    std::function<size_t(size_t)> find = [&](size_t x) {
      return parent[x] == x ? x : parent[x] = find(parent[x]);
    };
    for (const Link& l : topo.links) parent[find(l.a)] = find(l.b);
    for (size_t i = 1; i < topo.nodes.size(); ++i) {
      if (find(i) != find(0)) {
        const Node& n = topo.nodes[i];
        diag_.list().push_back({file_, n.pos.line, n.pos.column,
                                "node '" + n.name + "' has no path to node '" + topo.nodes[0].name +
                                    "': the topology is not connected"});
      }
    }
  }

  std::optional<size_t> endpoint(const YAML::Node& n, const Topology& topo) {
    std::string name;
    if (!scalar(n, "endpoint", name)) return std::nullopt;
    for (size_t i = 0; i < topo.nodes.size(); ++i) {
      if (topo.nodes[i].name == name) return i;
    }
    error(n, "link endpoint '" + name + "' is not a node defined under 'nodes'");
    return std::nullopt;
  }

  static void overlay(DirectionParams& d, const ParamsLayer& l) {
    if (l.rate) d.rate = *l.rate;
    if (l.delay) d.delay = *l.delay;
    if (l.jitter) d.jitter = *l.jitter;
    // One kind of loss per direction: the nearer layer's, whichever it is.
    if (l.loss) {
      d.loss = *l.loss;
      d.burst_loss.reset();
    }
    if (l.burst_loss) {
      d.burst_loss = *l.burst_loss;
      d.loss = Fraction{0};
    }
    if (l.queue) d.queue = *l.queue;
    if (l.reorder) d.reorder = *l.reorder;
    if (l.schedule) d.schedule = *l.schedule;
  }

  void parse_links(const YAML::Node& links, const ParamsLayer& defaults, Topology& topo) {
    if (!links.IsSequence()) {
      error(links, "links: expected a list of links, each with 'endpoints: [a, b]'");
      links_complete_ = false;
      return;
    }
    std::map<std::pair<size_t, size_t>, int> seen;
    for (const YAML::Node& ln : links) {
      if (!ln.IsMap()) {
        error(ln, "a link must be a mapping with 'endpoints: [a, b]'");
        continue;
      }
      const ParamsLayer common = parse_layer(ln, kLinkKeys, "in link");
      const ParamsLayer a2b =
          ln["a2b"] ? parse_layer(ln["a2b"], kParamKeys, "in a2b") : ParamsLayer{};
      const ParamsLayer b2a =
          ln["b2a"] ? parse_layer(ln["b2a"], kParamKeys, "in b2a") : ParamsLayer{};
      const YAML::Node ends = ln["endpoints"];
      if (!ends) {
        error(ln, "link: missing required key 'endpoints: [a, b]'");
        continue;
      }
      if (!ends.IsSequence() || ends.size() != 2) {
        error(ends, "endpoints: expected exactly two node names, e.g. [seattle, chicago]");
        continue;
      }
      const auto a = endpoint(ends[0], topo);
      const auto b = endpoint(ends[1], topo);
      if (!a || !b) continue;
      const std::string label = topo.nodes[*a].name + "-" + topo.nodes[*b].name;
      if (*a == *b) {
        error(ends, "link " + label + " connects a node to itself");
        continue;
      }
      const int line = ends.Mark().line + 1;
      if (auto [pos, fresh] = seen.emplace(std::minmax(*a, *b), line); !fresh) {
        error(ends, "duplicate link " + label + " (first defined on line " +
                        std::to_string(pos->second) + ")");
        continue;
      }
      Link link{*a, *b, {}, {}, {line, ends.Mark().column + 1}};
      for (auto [dir, own, name] : {std::tuple{&link.a2b, &a2b, "a2b"}, {&link.b2a, &b2a, "b2a"}}) {
        overlay(*dir, defaults);
        overlay(*dir, common);
        overlay(*dir, *own);
        // The chain's state is the loss's meaning: a schedule could only replace it.
        const bool loss_scheduled =
            std::any_of(dir->schedule.changes.begin(), dir->schedule.changes.end(),
                        [](const ScheduleChange& c) { return c.loss.has_value(); });
        if (dir->burst_loss && loss_scheduled) {
          error(ln, "link " + label + " (" + name +
                        "): a direction with gilbert_elliott loss cannot change its loss in a "
                        "schedule");
        }
        // A schedule that sets a rate at time 0 stands in for a static bandwidth.
        const uint64_t stream = direction_stream(topo.links.size(), dir == &link.b2a);
        if (auto r = initial_rate(dir->schedule, stream)) dir->rate = *r;
        // A bandwidth (or schedule) that was written but invalid has its own error already.
        const bool written = defaults.rate_written || common.rate_written || own->rate_written;
        if (dir->rate.bits_per_s == 0 && !written) {
          error(ends, "link " + label + ": no bandwidth for direction " + name +
                          " (set 'bandwidth' on the link or under 'defaults')");
        }
      }
      topo.links.push_back(link);
    }
    links_complete_ = topo.links.size() == links.size();
  }

  const SettingRules& workload_;
  std::string file_;
  std::string dir_;  // trace files are found relative to the profile
  uint64_t seed_ = 1;
  YamlDiagnostics diag_;
  bool links_complete_ = true;
};

Topology parse_node(const std::string& file, const SettingRules& workload,
                    const std::function<YAML::Node()>& load) {
  YAML::Node root;
  try {
    root = load();
  } catch (const YAML::BadFile&) {
    throw ValidationError({{file, 0, 0, "cannot read the file"}});
  } catch (const YAML::ParserException& e) {
    throw ValidationError({{file, e.mark.line + 1, e.mark.column + 1, "YAML syntax: " + e.msg}});
  }
  return Parser(file, workload).run(root);
}

}  // namespace

Topology parse_topology_file(const std::string& path, const SettingRules& workload) {
  return parse_node(path, workload, [&] { return YAML::LoadFile(path); });
}

Topology parse_topology_text(const std::string& text, const std::string& file_name,
                             const SettingRules& workload) {
  return parse_node(file_name, workload, [&] { return YAML::Load(text); });
}

}  // namespace testbed
