// Scenario files: strict parsing, every error reported at FILE:LINE:COL (see scenario.h).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "controller/options/workload_settings.h"
#include "controller/scenario/scenario.h"
#include "controller/topology/profile_locator.h"
#include "controller/topology/units.h"
#include "controller/topology/yaml_diagnostics.h"

namespace testbed {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys = {
    "name",       "description",   "topology", "dynamics",   "workload",
    "strategies", "repetitions",   "expect",   "rate_scale", "seeds",
    "reroute",    "cross_traffic", "capture",  "concurrent", "fit"};

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)), diag_(file_) {}

  Scenario run(const YAML::Node& root) {
    Scenario s;
    s.file = file_;
    s.name = fs::path(file_).stem().string();
    if (!root.IsMap()) {
      error(root, "a scenario must be a mapping with topology, strategies and expect");
      finish();
    }
    keys(root, kTopKeys, "at the top level of a scenario");
    if (root["name"]) s.name = text(root["name"], "name");
    if (!std::regex_match(s.name, std::regex("[a-z0-9][a-z0-9-]{0,31}")))
      error(root["name"] ? root["name"] : root,
            "name: '" + s.name + "' must be 1-32 characters of a-z, 0-9 and '-'");
    topology(root["topology"], root, s);
    if (root["dynamics"]) dynamics(root["dynamics"], s);
    if (root["rate_scale"]) {
      const std::string r = text(root["rate_scale"], "rate_scale");
      char* end = nullptr;
      const double x = std::strtod(r.c_str(), &end);
      if (end == r.c_str() || *end != '\0' || !(x > 0) || x > 100) {
        error(root["rate_scale"], "rate_scale: expected a number above 0 and at most 100");
      } else {
        s.rate_scale = x;
      }
    }
    if (root["fit"]) {
      s.fit = text(root["fit"], "fit");
      char* end = nullptr;
      const double x = std::strtod(s.fit.c_str(), &end);
      const bool factor = end != s.fit.c_str() && *end == '\0' && x >= 0.01 && x <= 1;
      if (s.fit != "scale" && s.fit != "refuse" && s.fit != "off" && !factor)
        error(root["fit"],
              "fit: expected scale, refuse, off or a factor in [0.01, 1] "
              "(docs/fit.md), not '" +
                  s.fit + "'");
    }
    if (root["reroute"]) reroute(root["reroute"], s);
    if (root["capture"]) capture(root["capture"], s);
    if (const YAML::Node c = root["cross_traffic"]) {
      if (!c.IsSequence()) {
        error(c, "cross_traffic: expected a list of {from, to, kind, ...} (docs/topologies.md)");
      } else {
        YAML::Emitter out;
        out << c;
        s.cross_traffic_yaml = out.c_str();
      }
    }
    if (root["workload"]) workload(root["workload"], s);
    strategies(root["strategies"], root, s);
    if (root["repetitions"]) {
      const std::string r = text(root["repetitions"], "repetitions");
      if (!std::regex_match(r, std::regex("[1-9][0-9]?"))) {
        error(root["repetitions"], "repetitions: expected a whole number from 1 to 99");
      } else {
        s.repetitions = std::stoi(r);
      }
    }
    if (root["seeds"]) seeds(root["seeds"], root, s);
    if (root["concurrent"]) concurrent(root["concurrent"], s);
    if (root["expect"]) expectations(root["expect"], s);
    finish();
    return s;
  }

 private:
  void error(const YAML::Node& at, const std::string& message) { diag_.error(at, message); }
  void finish() { diag_.finish(); }
  void keys(const YAML::Node& map, const std::vector<std::string>& allowed,
            const std::string& where) {
    diag_.check_keys(map, allowed, where);
  }
  std::string text(const YAML::Node& n, const std::string& what) {
    std::string out;
    diag_.scalar(n, what, out);
    return out;
  }

  // seeds: [1, 2, 3]: one repetition per seed; `repetitions`, if also given, must agree.
  void seeds(const YAML::Node& n, const YAML::Node& root, Scenario& s) {
    if (!n.IsSequence() || n.size() == 0 || n.size() > 99) {
      error(n, "seeds: expected a list of 1 to 99 whole numbers, e.g. [1, 2, 3]");
      return;
    }
    for (const auto& x : n) {
      const std::string v = text(x, "seeds");
      if (!std::regex_match(v, std::regex("[0-9]{1,18}"))) {
        error(x, "seeds: '" + v + "' is not a whole number");
        return;
      }
      s.seeds.push_back(std::stoull(v));
    }
    if (root["repetitions"] && s.repetitions != static_cast<int>(s.seeds.size())) {
      error(root["repetitions"], "repetitions: " + std::to_string(s.repetitions) +
                                     " disagrees with the " + std::to_string(s.seeds.size()) +
                                     " seeds; give one of them");
      return;
    }
    s.repetitions = static_cast<int>(s.seeds.size());
  }

  void topology(const YAML::Node& n, const YAML::Node& root, Scenario& s) {
    if (!n) {
      error(root, "topology: missing; give a profile path or an inline profile");
      return;
    }
    if (n.IsMap()) {
      YAML::Emitter out;
      out << n;
      s.topology_inline = out.c_str();
      return;
    }
    s.topology_path = profile_path(n);
  }

  // A profile named by a path relative to the scenario, or a bundled profile's name; ""
  // (and an error at `n`) when it is neither.
  std::string profile_path(const YAML::Node& n) {
    const std::string path = text(n, "topology");
    const fs::path relative = fs::path(file_).parent_path() / path;
    // The error_code forms: a name the file system refuses (too long, say) is no file
    // here, not an exception out of the parser (found by fuzzing).
    std::error_code ec;
    if (fs::is_regular_file(relative, ec)) {
      const fs::path absolute = fs::absolute(relative, ec);
      if (!ec) return absolute.lexically_normal().string();
    }
    try {
      return locate_profile(path);
    } catch (const std::exception& e) {
      error(n, "topology: " + std::string(e.what()));
    }
    return "";
  }

  void dynamics(const YAML::Node& n, Scenario& s) {
    if (!n.IsMap()) {
      error(n, "dynamics: expected a mapping with time_scale and/or events");
      return;
    }
    keys(n, {"time_scale", "events"}, "in dynamics");
    if (n["time_scale"]) {
      const std::string t = text(n["time_scale"], "time_scale");
      try {
        size_t used = 0;
        s.time_scale = std::stod(t, &used);
        if (used != t.size() || !(s.time_scale > 0)) throw std::invalid_argument(t);
      } catch (const std::exception&) {
        error(n["time_scale"], "time_scale: expected a number greater than 0, not '" + t + "'");
      }
    }
    if (!n["events"]) return;
    if (!n["events"].IsSequence()) {
      error(n["events"],
            "events: expected a list of {at, link: [a, b], bandwidth|delay|loss|state}, "
            "{at, node, event} or {at, partition: [nodes], heal}");
      return;
    }
    for (const auto& e : n["events"]) event(e, s);
  }

  // reroute: static, or {convergence: D} ({} for the default): the topology's routing, so
  // one topology serves a scenario with static routes and one that routes around cuts.
  void reroute(const YAML::Node& n, Scenario& s) {
    if (n.IsScalar() && n.Scalar() == "static") {
      s.reroute = "static";
      return;
    }
    if (!n.IsMap()) {
      error(n, "reroute: expected static, {} or {convergence: 300ms}");
      return;
    }
    keys(n, {"convergence"}, "in reroute");
    if (!n["convergence"]) {
      s.reroute = "default";  // the profile's default convergence (topology.h)
      return;
    }
    s.reroute = text(n["convergence"], "reroute.convergence");
    std::string why;
    if (!parse_duration(s.reroute, why)) error(n["convergence"], "reroute.convergence: " + why);
  }

  // concurrent: true: the strategies side by side on one lab. One `train` at most (its
  // agents hold the lab's agent port), and no variant with a lab of its own.
  void concurrent(const YAML::Node& n, Scenario& s) {
    const std::string v = text(n, "concurrent");
    if (v != "true" && v != "false") {
      error(n, "concurrent: expected true or false");
      return;
    }
    s.concurrent = v == "true";
    if (!s.concurrent) return;
    std::vector<std::string> trains;
    for (const auto& name : s.strategies) {
      if (!s.jobs.count(name)) trains.push_back(name);
      if (s.variant_topologies.count(name))
        error(n, "concurrent: strategy " + name +
                     " has a topology of its own; side by side, every job shares the lab");
    }
    if (trains.size() > 1)
      error(n, "concurrent: " + std::to_string(trains.size()) +
                   " built-in strategies; one `train` per lab at a time, beside any number of "
                   "launched jobs (command: ...)");
  }

  void capture(const YAML::Node& n, Scenario& s) {
    // 128 bytes hold the Ethernet, IP and TCP headers with options, and ZeroMQ's frame
    // header: what a look at a run's packets needs, at a tenth of a full packet's size.
    constexpr int kHeadersSnaplen = 128;
    if (n.IsScalar() && n.Scalar() == "all") {
      s.capture_snaplen = kHeadersSnaplen;
      return;
    }
    if (!n.IsMap()) {
      error(n, "capture: expected all or {snaplen: N}");
      return;
    }
    keys(n, {"snaplen"}, "in capture");
    s.capture_snaplen = kHeadersSnaplen;
    if (n["snaplen"]) {
      const std::string v = text(n["snaplen"], "capture.snaplen");
      // 64: the headers need at least that; 262144: tcpdump's full size.
      if (!std::regex_match(v, std::regex("[0-9]{2,6}")) || std::stoi(v) < 64 ||
          std::stoi(v) > 262144) {
        error(n["snaplen"], "capture.snaplen: expected a whole number from 64 to 262144");
      } else {
        s.capture_snaplen = std::stoi(v);
      }
    }
  }

  // A node's fault: {at, node, event: crash|pause|restart, [for]}; or its CPU share:
  // {at, node, event: cpus, cpus: 0.25|all} (docs/compute.md).
  void node_event(const YAML::Node& e, Scenario& s) {
    keys(e, {"at", "node", "event", "for", "cpus"}, "in a node's event");
    NodeFaultEvent ev;
    std::string why;
    if (const auto d = parse_duration(text(e["at"], "at"), why)) {
      ev.at_s = static_cast<double>(d->us) / 1e6;
    } else {
      error(e["at"], "at: " + why);
    }
    ev.node = text(e["node"], "node");
    ev.event = e["event"] ? text(e["event"], "event") : "";
    if (ev.event != "crash" && ev.event != "pause" && ev.event != "restart" && ev.event != "cpus" &&
        ev.event != "leave" && ev.event != "join")
      error(e["event"] ? e["event"] : e,
            "event: expected crash, pause, restart, cpus, leave or join");
    if (e["cpus"]) ev.cpus_text = text(e["cpus"], "cpus");  // judged by the profile parser
    if (e["for"]) {
      ev.for_text = text(e["for"], "for");
      if (!parse_duration(ev.for_text, why)) error(e["for"], "for: " + why);
    }
    s.node_events.push_back(ev);
  }

  // A partition: {at, partition: [nodes], heal}; the profile parser judges the nodes and
  // the cut (a partition that cuts nothing, heal not after at), naming the derived topology.
  void partition_event(const YAML::Node& e, Scenario& s) {
    keys(e, {"at", "partition", "heal"}, "in a partition event");
    PartitionEvent p;
    std::string why;
    p.at_text = text(e["at"], "at");
    if (!parse_duration(p.at_text, why)) error(e["at"], "at: " + why);
    if (!e["heal"]) {
      error(e, "a partition needs its heal time, e.g. {at: 30s, partition: [a], heal: 60s}");
    } else {
      p.heal_text = text(e["heal"], "heal");
      if (!parse_duration(p.heal_text, why)) error(e["heal"], "heal: " + why);
    }
    if (!e["partition"].IsSequence() || e["partition"].size() == 0) {
      error(e["partition"], "partition: expected a list of node names, e.g. [seattle]");
    } else {
      for (const auto& n : e["partition"]) p.nodes.push_back(text(n, "partition"));
    }
    s.partitions.push_back(p);
  }

  void event(const YAML::Node& e, Scenario& s) {
    if (e.IsMap() && e["at"] && e["partition"] && !e["link"]) return partition_event(e, s);
    if (e.IsMap() && e["at"] && e["node"] && !e["link"]) return node_event(e, s);
    if (!e.IsMap() || !e["at"] || !e["link"]) {
      error(e,
            "an event needs 'at' and 'link: [a, b]' (and one of bandwidth, delay, loss, "
            "state), or 'node' and 'event'");
      return;
    }
    keys(e, {"at", "link", "dir", "bandwidth", "delay", "loss", "state"}, "in an event");
    LinkEvent ev;
    std::string why;
    const std::string at = text(e["at"], "at");
    if (const auto d = parse_duration(at, why)) {
      ev.at_s = static_cast<double>(d->us) / 1e6;
    } else {
      error(e["at"], "at: " + why);
    }
    if (!e["link"].IsSequence() || e["link"].size() != 2) {
      error(e["link"], "link: expected two node names, e.g. [chicago, kansascity]");
    } else {
      ev.a = text(e["link"][0], "link");
      ev.b = text(e["link"][1], "link");
    }
    if (e["dir"]) {
      ev.direction = text(e["dir"], "dir");
      if (ev.direction != "a2b" && ev.direction != "b2a" && ev.direction != "both")
        error(e["dir"], "dir: '" + ev.direction + "' must be a2b, b2a or both");
    }
    const auto unit = [&](const char* key, std::string& out, auto parse) {
      if (!e[key]) return;
      out = text(e[key], key);
      if (!parse(out, why)) error(e[key], std::string(key) + ": " + why);
    };
    unit("bandwidth", ev.bandwidth, parse_rate);
    unit("delay", ev.delay, parse_duration);
    unit("loss", ev.loss, parse_percent);
    if (e["state"]) {
      ev.state = text(e["state"], "state");
      if (ev.state != "down" && ev.state != "up")
        error(e["state"], "state: '" + ev.state + "' must be down or up");
    }
    if (ev.bandwidth.empty() && ev.delay.empty() && ev.loss.empty() && ev.state.empty())
      error(e, "an event must change at least one of bandwidth, delay, loss, state");
    s.events.push_back(ev);
  }

  void workload(const YAML::Node& n, Scenario& s) {
    if (!n.IsMap()) {
      error(n, "workload: expected a mapping of train settings");
      return;
    }
    std::vector<std::string> allowed;
    for (const auto& k : workload_keys())
      if (k != "strategy") allowed.push_back(k);  // strategies are listed on their own
    keys(n, allowed, "in workload (strategies go under 'strategies')");
    for (const auto& k : allowed) {
      if (!n[k]) continue;
      const std::string v = text(n[k], "workload." + k);
      const std::string why = check_workload_setting(k, v);
      if (why.empty()) {
        s.workload[k] = v;
      } else {
        error(n[k], "workload." + k + ": " + why);
      }
    }
  }

  // {name: LABEL, strategy: S, KEY: VALUE...}: strategy S with train settings of its own
  // over the scenario's workload, reported as LABEL (a row of a paper's table).
  // {name: LABEL, command: [PROGRAM, ARGS...], nodes: N1,N2, target-loss: L, ...}: the
  // user's own program, run by `testbed launch`.
  void launched_job(const YAML::Node& x, const std::string& name, Scenario& s) {
    keys(x, {"name", "command", "nodes", "target-loss", "max-seconds", "master-port"},
         "in a launched job (a strategy entry with a command)");
    const YAML::Node& c = x["command"];
    LaunchedJob job;
    if (!c.IsSequence() || c.size() == 0) {
      error(c, "command: expected a non-empty list, the program and its arguments");
      return;
    }
    for (const auto& arg : c) job.command.push_back(text(arg, "command"));
    if (job.command.front().empty()) error(c, "command: the program's name is empty");
    if (x["nodes"]) job.nodes = text(x["nodes"], "nodes");
    for (const std::string k : {"target-loss", "max-seconds", "master-port"}) {
      if (!x[k]) continue;
      const std::string v = text(x[k], k);
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(d >= 0))
        error(x[k], k + ": expected a number >= 0, not '" + v + "'");
      job.options[k] = v;
    }
    s.strategies.push_back(name);
    s.jobs[name] = job;
  }

  void variant(const YAML::Node& x, Scenario& s) {
    if (x["command"]) {
      const std::string name = x["name"] ? text(x["name"], "name") : "";
      if (!std::regex_match(name, std::regex("[a-z0-9][a-z0-9+-]{0,47}"))) {
        error(x["name"] ? x["name"] : x,
              "a launched job needs a name of 1-48 characters of a-z, 0-9, '+', '-', e.g. "
              "{name: ddp, command: [python3, train.py]}");
        return;
      }
      if (std::find(s.strategies.begin(), s.strategies.end(), name) != s.strategies.end()) {
        error(x["name"], "strategy '" + name + "' is listed twice");
        return;
      }
      launched_job(x, name, s);
      return;
    }
    std::vector<std::string> allowed = workload_keys();
    allowed.push_back("name");
    allowed.push_back("topology");  // a lab of its own (a profile path), over the scenario's
    keys(x, allowed, "in a strategy variant");
    if (!x["name"] || !x["strategy"]) {
      error(x,
            "a strategy variant needs a name and a strategy, e.g. {name: drps-index, "
            "strategy: drps, index: on}");
      return;
    }
    const std::string name = text(x["name"], "name");
    if (!std::regex_match(name, std::regex("[a-z0-9][a-z0-9+-]{0,47}"))) {
      error(x["name"], "name: '" + name + "' must be 1-48 characters of a-z, 0-9, '+', '-'");
      return;
    }
    if (std::find(s.strategies.begin(), s.strategies.end(), name) != s.strategies.end()) {
      error(x["name"], "strategy '" + name + "' is listed twice");
      return;
    }
    std::map<std::string, std::string> options;
    for (const auto& k : workload_keys()) {
      if (!x[k]) continue;
      const std::string v = text(x[k], k);
      const std::string why = check_workload_setting(k, v);
      if (!why.empty()) error(x[k], k + ": " + why);
      options[k] = v;
    }
    if (x["topology"]) {
      if (!x["topology"].IsScalar()) {
        error(x["topology"], "topology: a variant's topology is a profile path");
        return;
      }
      s.variant_topologies[name] = profile_path(x["topology"]);
    }
    s.strategies.push_back(name);
    s.variants[name] = options;
  }

  void strategies(const YAML::Node& n, const YAML::Node& root, Scenario& s) {
    if (!n || !n.IsSequence() || n.size() == 0) {
      error(n ? n : root, "strategies: expected a non-empty list, e.g. [ps, netstorm-pro]");
      return;
    }
    for (const auto& x : n) {
      if (x.IsMap()) {
        variant(x, s);
        continue;
      }
      const std::string name = text(x, "strategy");
      const std::string why = check_workload_setting("strategy", name);
      if (!why.empty()) {
        error(x, why);
      } else if (std::find(s.strategies.begin(), s.strategies.end(), name) != s.strategies.end()) {
        error(x, "strategy '" + name + "' is listed twice");
      } else {
        s.strategies.push_back(name);
      }
    }
  }

  void expectations(const YAML::Node& n, Scenario& s) {
    if (!n.IsSequence()) {
      error(n, "expect: expected a list, e.g. ['netstorm-pro / ps >= 4', 'no node failed']");
      return;
    }
    for (const auto& x : n) {
      std::string why;
      const auto e = parse_expectation(text(x, "expectation"), why);
      if (!e) {
        error(x, "expect: " + why);
        continue;
      }
      for (const auto& name : {e->strategy, e->over}) {
        if (!name.empty() &&
            std::find(s.strategies.begin(), s.strategies.end(), name) == s.strategies.end())
          error(x, "expect: strategy '" + name + "' is not among the scenario's strategies");
      }
      s.expectations.push_back(*e);
    }
  }

  std::string file_;
  YamlDiagnostics diag_;
};

}  // namespace

Scenario parse_scenario_text(const std::string& text, const std::string& file) {
  YAML::Node root = load_yaml(text, file);
  return Parser(file).run(root);
}

Scenario parse_scenario_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ValidationError({{path, 0, 0, "cannot read the file"}});
  std::stringstream text;
  text << in.rdbuf();
  return parse_scenario_text(text.str(), path);
}

}  // namespace testbed
