#include "controller/scenario/scenario.h"

#include "controller/topology/units.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

// Scenarios beyond parsing (scenario_parser.cpp): events written into the topology, and
// the verdicts on expectations.
namespace testbed {
namespace {

bool compare(double a, const std::string& op, double b) {
  if (op == ">=") return a >= b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  return a < b;
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

}  // namespace

namespace {

// Multiplies the rate at `n[key]`, if any, by the scenario's rate_scale.
void scale_rate(YAML::Node n, const char* key, const Scenario& s,
                std::vector<Diagnostic>& problems) {
  if (!n || !n.IsMap() || !static_cast<const YAML::Node&>(n)[key]) return;
  std::string why;
  const auto rate = parse_rate(n[key].Scalar(), why);
  if (!rate)
    return problems.push_back({s.file, 0, 0, "rate_scale: " + n[key].Scalar() + ": " + why});
  const auto bits = std::llround(static_cast<double>(rate->bits_per_s) * s.rate_scale);
  n[key] = std::to_string(std::max<long long>(1, bits)) + "bit";
}

void scale_schedule(YAML::Node owner, const Scenario& s, std::vector<Diagnostic>& problems) {
  if (!owner || !owner.IsMap() || !static_cast<const YAML::Node&>(owner)["schedule"]) return;
  YAML::Node sched = owner["schedule"];
  if (YAML::Node random = sched["random"]; random && random.IsMap() && random["bandwidth"]) {
    // Every rate it draws from, as a list or a range lo..hi (a step is a rate too).
    YAML::Node b = random["bandwidth"];
    if (b.IsSequence()) {
      for (size_t k = 0; k < b.size(); ++k) {
        YAML::Node holder;
        holder["bandwidth"] = b[k].Scalar();
        scale_rate(holder, "bandwidth", s, problems);
        b[k] = holder["bandwidth"].Scalar();
      }
    } else if (const auto dots = b.Scalar().find(".."); dots != std::string::npos) {
      YAML::Node holder;
      holder["lo"] = b.Scalar().substr(0, dots);
      holder["hi"] = b.Scalar().substr(dots + 2);
      scale_rate(holder, "lo", s, problems);
      scale_rate(holder, "hi", s, problems);
      random["bandwidth"] = holder["lo"].Scalar() + ".." + holder["hi"].Scalar();
    } else {
      scale_rate(random, "bandwidth", s, problems);
    }
    scale_rate(random, "step", s, problems);
    return;
  }
  if (!sched["steps"]) {
    problems.push_back(
        {s.file, 0, 0, "rate_scale scales fixed rates, steps and random draws, not traces"});
    return;
  }
  for (size_t k = 0; k < sched["steps"].size(); ++k)
    scale_rate(sched["steps"][k], "bandwidth", s, problems);
}

void scale_rates(YAML::Node root, const Scenario& s, std::vector<Diagnostic>& problems) {
  scale_rate(root["defaults"], "bandwidth", s, problems);
  scale_schedule(root["defaults"], s, problems);
  YAML::Node links = root["links"];
  for (size_t i = 0; links.IsSequence() && i < links.size(); ++i) {
    YAML::Node l = links[i];
    scale_rate(l, "bandwidth", s, problems);
    scale_schedule(l, s, problems);
    for (const char* d : {"a2b", "b2a"}) {
      if (!static_cast<const YAML::Node&>(l)[d]) continue;  // reading must not add the key
      scale_rate(l[d], "bandwidth", s, problems);
      scale_schedule(l[d], s, problems);
    }
  }
  // A UDP stream of cross traffic keeps its share of the links it crosses (a poisson
  // entry's load is a share already; bulk flows take what TCP gets).
  YAML::Node traffic = root["cross_traffic"];
  for (size_t i = 0; traffic.IsSequence() && i < traffic.size(); ++i) {
    YAML::Node t = traffic[i];
    if (t.IsMap() && t["rate"]) scale_rate(t, "rate", s, problems);
  }
}

}  // namespace

std::string derive_topology(const Scenario& s, const std::string& topology_yaml,
                            const std::string& lab, std::optional<uint64_t> seed) {
  YAML::Node root = YAML::Load(topology_yaml);
  root["lab"] = lab;
  if (seed) root["seed"] = *seed;
  if (s.reroute == "static") {
    root.remove("reroute");
  } else if (!s.reroute.empty()) {
    root["reroute"] = YAML::Node(YAML::NodeType::Map);
    if (s.reroute != "default") root["reroute"]["convergence"] = s.reroute;
  }
  std::vector<Diagnostic> problems;
  std::vector<LinkEvent> events = s.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const LinkEvent& x, const LinkEvent& y) { return x.at_s < y.at_s; });
  const bool default_schedule = root["defaults"] && root["defaults"]["schedule"];
  for (const auto& e : events) {
    YAML::Node link;
    bool found = false, reversed = false;
    YAML::Node all = root["links"];
    for (size_t i = 0; all.IsSequence() && i < all.size(); ++i) {
      YAML::Node l = all[i];
      const auto ends = l["endpoints"];
      if (!ends || ends.size() != 2) continue;
      const std::string x = ends[0].Scalar(), y = ends[1].Scalar();
      if ((x == e.a && y == e.b) || (x == e.b && y == e.a)) {
        link = l;
        found = true;
        reversed = x != e.a;
        break;
      }
    }
    const std::string name = "link " + e.a + "-" + e.b;
    if (!found) {
      problems.push_back(
          {s.file, 0, 0, "event at " + number(e.at_s) + " s: the topology has no " + name});
      continue;
    }
    std::vector<std::string> dirs;
    if (e.direction != "b2a") dirs.push_back(reversed ? "b2a" : "a2b");
    if (e.direction != "a2b") dirs.push_back(reversed ? "a2b" : "b2a");
    for (const auto& d : dirs) {
      YAML::Node dir = link[d];
      const bool own_steps = dir && dir["schedule"] && dir["schedule"]["steps"];
      if (default_schedule || link["schedule"] || (dir && dir["schedule"] && !own_steps)) {
        problems.push_back({s.file, 0, 0,
                            "event at " + number(e.at_s) + " s: " + name +
                                " already changes by a schedule; events only add steps to "
                                "links without one"});
        continue;
      }
      YAML::Node step;
      step["at"] = number(e.at_s) + "s";
      if (!e.bandwidth.empty()) step["bandwidth"] = e.bandwidth;
      if (!e.delay.empty()) step["delay"] = e.delay;
      if (!e.loss.empty()) step["loss"] = e.loss;
      if (!e.state.empty()) step["state"] = e.state;
      link[d]["schedule"]["steps"].push_back(step);
    }
  }
  // Node faults join the node's own schedule; the profile parser judges the whole (a
  // pause without its length, overlapping pauses), naming the derived topology.
  for (const auto& e : s.node_events) {
    YAML::Node nodes = root["nodes"];
    if (!nodes.IsMap() || !nodes[e.node]) {
      problems.push_back(
          {s.file, 0, 0,
           "event at " + number(e.at_s) + " s: the topology has no node '" + e.node + "'"});
      continue;
    }
    YAML::Node node = nodes[e.node];
    if (!node.IsMap()) node = YAML::Node(YAML::NodeType::Map);
    YAML::Node step;
    step["at"] = number(e.at_s) + "s";
    step["event"] = e.event;
    if (!e.for_text.empty()) step["for"] = e.for_text;
    if (!e.cpus_text.empty()) step["cpus"] = e.cpus_text;
    node["schedule"].push_back(step);
    nodes[e.node] = node;
  }
  // Partitions join the topology's own; the profile parser judges them.
  for (const auto& p : s.partitions) {
    YAML::Node entry;
    for (const auto& n : p.nodes) entry["nodes"].push_back(n);
    entry["at"] = p.at_text;
    entry["heal"] = p.heal_text;
    root["partitions"].push_back(entry);
  }
  // Cross traffic joins the topology's own; the profile parser judges it, with the lab's
  // nodes. A UDP stream's rate is scaled with the links (scale_rates).
  if (!s.cross_traffic_yaml.empty())
    for (const YAML::Node& entry : YAML::Load(s.cross_traffic_yaml))
      root["cross_traffic"].push_back(entry);
  if (s.rate_scale != 1.0) scale_rates(root, s, problems);
  if (!problems.empty()) throw ValidationError(problems);
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::vector<Verdict> judge(const Scenario& s, const std::map<std::string, StrategyOutcome>& by) {
  std::vector<Verdict> out;
  const auto figure = [&](const std::string& strategy, const std::string& metric,
                          std::string& why) -> std::optional<double> {
    const auto it = by.find(strategy);
    if (it == by.end()) {
      why = strategy + " did not run";
      return std::nullopt;
    }
    if (it->second.failed) {
      why = strategy + " failed: " + it->second.failure;
      return std::nullopt;
    }
    const auto f = it->second.figures.find(metric);
    if (f == it->second.figures.end()) {
      why = metric == "time_to_loss" && it->second.figures.count("final_loss")
                ? strategy + " did not reach the target loss"
                : strategy + " has no " + metric;
      return std::nullopt;
    }
    return f->second;
  };
  for (const auto& e : s.expectations) {
    Verdict v{e.text, false, ""};
    if (e.kind == Expectation::Kind::kNoNodeFailed) {
      v.passed = true;
      for (const auto& [strategy, o] : by) {
        if (o.failed) {
          v.passed = false;
          v.detail += (v.detail.empty() ? "" : "; ") + strategy + ": " + o.failure;
        }
      }
      if (v.passed) v.detail = "every run finished";
    } else if (e.kind == Expectation::Kind::kEmulationHealthy) {
      v.passed = true;
      for (const auto& [strategy, o] : by) {
        for (const auto& problem : o.health_problems) {
          v.passed = false;
          v.detail += (v.detail.empty() ? "" : "; ") + strategy + ": " + problem;
        }
      }
      if (v.passed) v.detail = "every run within the health thresholds";
    } else if (e.kind == Expectation::Kind::kRatio) {
      std::string why;
      const auto a = figure(e.strategy, "samples_per_s", why);
      const auto b = a ? figure(e.over, "samples_per_s", why) : std::nullopt;
      if (a && b && *b > 0) {
        v.passed = compare(*a / *b, e.op, e.value);
        v.detail =
            "measured " + number(*a / *b) + " (samples/s " + number(*a) + " / " + number(*b) + ")";
      } else {
        v.detail = why.empty() ? e.over + " processed nothing" : why;
      }
    } else if (e.kind == Expectation::Kind::kFigureRatio ||
               e.kind == Expectation::Kind::kRelative) {
      std::string why;
      const auto a = figure(e.strategy, e.metric, why);
      const auto b = a ? figure(e.over, e.over_metric, why) : std::nullopt;
      if (!a || !b) {
        v.detail = why;
      } else if (e.kind == Expectation::Kind::kRelative) {
        v.passed = compare(*a, e.op, e.value * *b);
        v.detail = "measured " + number(*a) + " against " + number(e.value) + " x " + number(*b);
      } else if (*b > 0) {
        v.passed = compare(*a / *b, e.op, e.value);
        v.detail = "measured " + number(*a / *b) + " (" + number(*a) + " / " + number(*b) + ")";
      } else {
        v.detail = e.over + "'s " + e.over_metric + " is 0";
      }
    } else {
      std::string why;
      if (const auto x = figure(e.strategy, e.metric, why)) {
        v.passed = compare(*x, e.op, e.value);
        v.detail = "measured " + number(*x);
      } else {
        v.detail = why;
      }
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace testbed
