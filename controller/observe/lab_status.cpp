#include "controller/observe/lab_status.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "controller/dynamics/link_control.h"
#include "controller/dynamics/node_faults.h"
#include "controller/health/delay_line_query.h"
#include "controller/lab/plan.h"
#include "controller/lab/plan_table.h"
#include "controller/lab/route_book.h"
#include "controller/observe/node_compute_status.h"

namespace testbed {
namespace {

// Overlays what the timeline or `link set` changed since `up` (current.json), and sums up
// the timeline's log: how many changes were applied and the worst lag.
void add_current(nlohmann::json& lab, const std::string& dir) {
  const CurrentLinks current = read_current(dir);
  for (auto& link : lab["links"]) {
    for (const char* dir_name : {"a2b", "b2a"}) {
      auto& d = link[dir_name];
      const std::string key = std::to_string(link["index"].get<size_t>()) + ":" + dir_name;
      nlohmann::json now = {{"rate_bits_per_s", d["rate_bits_per_s"]},
                            {"delay_us", d["delay_us"]},
                            {"loss", d["loss_fraction"]},
                            {"down", false}};
      if (const auto it = current.find(key); it != current.end()) {
        now["rate_bits_per_s"] = it->second.rate.bits_per_s;
        now["delay_us"] = it->second.delay.us;
        now["loss"] = it->second.loss.value;
        now["down"] = it->second.down;  // cut by a fault (faults.md)
      }
      d["current"] = now;
    }
  }
  std::ifstream log(dir + "/timeline.csv");
  int changes = 0;
  double max_lag = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream fields(line);
    std::string scheduled, applied, lag;
    std::getline(fields, scheduled, ',');
    std::getline(fields, applied, ',');
    std::getline(fields, lag, ',');
    ++changes;
    max_lag = std::max(max_lag, std::stod(lag));
  }
  lab["timeline"] = {{"changes_applied", changes}, {"max_lag_ms", max_lag}};
}

// Adds what the kernel says of each shaped direction; needs root, else stays configured-only.
void add_live(nlohmann::json& lab, Kernel* kernel) {
  using counts = std::map<std::string, Kernel::TrafficCount>;
  std::map<std::string, counts> background;  // by receiving namespace
  for (auto& node : lab["nodes"]) {
    node["present"] =
        kernel ? nlohmann::json(kernel->namespace_exists(node["namespace"])) : nlohmann::json();
  }
  for (auto& link : lab["links"]) {
    for (const char* dir : {"a2b", "b2a"}) {
      auto& d = link[dir];
      if (!kernel) continue;
      const auto live = kernel->namespace_exists(d["namespace"])
                            ? kernel->shaping(d["namespace"], d["dev"])
                            : std::nullopt;
      if (!live) {
        d["kernel"] = nullptr;
        continue;
      }
      d["kernel"] = {{"rate_bits_per_s", live->config.rate_bytes_per_s * 8},
                     {"sent_bytes", live->sent_bytes},
                     {"sent_packets", live->sent_packets},
                     {"dropped_packets", live->dropped_packets}};
      if (lab.contains("cross_traffic")) {
        // The cross traffic it delivered (kernel.h, TrafficCounters), where it arrives;
        // one read per receiving namespace.
        const std::string rx_ns = d["receiver"]["namespace"];
        auto it = background.find(rx_ns);
        if (it == background.end())
          it = background
                   .emplace(rx_ns, kernel->namespace_exists(rx_ns) ? kernel->traffic_counts(rx_ns)
                                                                   : counts{})
                   .first;
        const auto c = it->second.find(d["receiver"]["dev"].get<std::string>());
        d["kernel"]["background_bytes"] =
            c == it->second.end() ? nlohmann::json() : nlohmann::json(c->second.bytes);
      }
    }
  }
}

// The emulation health of the lab's newest run (runs/ files are named by ISO 8601 time, so
// the greatest name is the newest), as `train` recorded it.
void add_last_run_health(nlohmann::json& j, const std::string& dir) {
  std::string newest;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/runs", ec)) {
    const std::string p = e.path().string();
    if (e.path().extension() == ".json" && p > newest) newest = p;
  }
  if (newest.empty()) return;
  try {
    std::ifstream in(newest);
    const auto run = nlohmann::json::parse(in);
    if (run.contains("health"))
      j["last_run_health"] = {{"file", newest}, {"health", run["health"]}};
  } catch (const std::exception&) {
    // a run being written: no health to show yet
  }
}

void print_health(std::ostream& out, const nlohmann::json& last) {
  const auto& h = last["health"];
  const auto& late = h["release_lateness_ms"];
  out << "\nemulation health of the last run (" << last["file"].get<std::string>()
      << "): " << (h["healthy"].get<bool>() ? "healthy" : "UNHEALTHY") << "\n  delay-line "
      << "release lateness p50/p99/max " << late["p50"] << "/" << late["p99"] << "/" << late["max"]
      << " ms over " << late["packets"] << " packets";
  if (h.contains("emulator_lateness_ms"))  // runs recorded before the split lack it
    out << " (p99 " << h["emulator_lateness_ms"]["p99"] << " ms less the host's stalls)";
  out << "; CPUs saturated " << std::lround(h["cpu_saturated_share"].get<double>() * 100)
      << "% of the run";
  if (!h["min_backlogged_rate_ratio"].is_null())
    out << "; slowest backlogged link at "
        << std::lround(h["min_backlogged_rate_ratio"].get<double>() * 100) << "% of its rate";
  out << "\n";
  for (const auto& p : h["problems"]) out << "  " << p.get<std::string>() << "\n";
  for (const auto& n : h.value("notes", nlohmann::json::array()))
    out << "  note: " << n.get<std::string>() << "\n";
}

// Each entry of the lab's cross traffic, and what it delivered on each direction so far.
void print_cross_traffic(std::ostream& out, const nlohmann::json& status) {
  out << "\ncross traffic (docs/topologies.md#cross-traffic)\n";
  TextTable entries({"KIND", "FROM", "TO", "AMOUNT", "START", "STOP", "PORT", "PATH"});
  for (const auto& t : status["cross_traffic"]) {
    const std::string kind = t["kind"];
    std::string path;
    for (const auto& d : t["path"]) path += (path.empty() ? "" : " ") + d.get<std::string>();
    const std::string amount = kind == "bulk"
                                   ? std::to_string(t["flows"].get<int>()) + " flows"
                                   : format_rate(Rate{t["rate_bits_per_s"].get<uint64_t>()}) +
                                         (kind == "poisson" ? " mean" : "");
    entries.add({kind, t["from"], t["to"], amount,
                 format_time(Duration{static_cast<int64_t>(t["start_s"].get<double>() * 1e6)}),
                 t["stop_s"].is_null()
                     ? "-"
                     : format_time(Duration{static_cast<int64_t>(t["stop_s"].get<double>() * 1e6)}),
                 std::to_string(t["port"].get<int>()), path});
  }
  entries.print(out);
  TextTable delivered({"FROM", "TO", "BACKGROUND DELIVERED"});
  for (const auto& l : status["links"]) {
    for (const char* dir : {"a2b", "b2a"}) {
      const auto& d = l[dir];
      if (!d.contains("kernel") || d["kernel"].is_null() ||
          d["kernel"].value("background_bytes", nlohmann::json()).is_null())
        continue;
      const uint64_t bytes = d["kernel"]["background_bytes"];
      if (bytes > 0) delivered.add({d["from"], d["to"], std::to_string(bytes) + "B"});
    }
  }
  delivered.print(out);
}

}  // namespace

// `status` is lab_status()'s JSON, as `status --json` prints it: the plan with what is live.
void print_lab_status(std::ostream& out, const LabState& s, const nlohmann::json& status,
                      bool live) {
  out << "lab " << s.lab << " (" << s.phase << ", from " << s.source << ", since " << s.created_at
      << ")\n\nnodes\n";
  TextTable nodes({"NODE", "NAMESPACE", "ADDRESS", "PRESENT", "STATE"});
  for (const auto& n : status["nodes"]) {
    nodes.add({n["name"], n["namespace"], n["address"],
               n["present"].is_null() ? "?" : (n["present"].get<bool>() ? "yes" : "NO"),
               n.value("state", "running")});
  }
  nodes.print(out);
  print_compute(out, status);
  for (const auto& [key, what] :
       {std::pair{"metrics_url", "metrics"}, std::pair{"prometheus_url", "prometheus"},
        std::pair{"grafana_url", "grafana"}}) {
    if (status.contains(key)) out << what << ": " << status[key].get<std::string>() << "\n";
  }
  out << "\nbackend for delay, jitter and loss: " << status.value("backend", "?") << " ("
      << status.value("backend_reason", "") << ")\n";
  const auto& tl = status["timeline"];
  out << "timeline: " << tl["changes_applied"] << " scheduled changes applied, worst lag "
      << tl["max_lag_ms"] << " ms\n";
  out << "\nlinks (per direction, current values)\n";
  TextTable links(
      {"FROM", "TO", "DEV", "RATE", "DELAY", "LOSS", "STATE", "KERNEL RATE", "SENT", "DROPS"});
  for (const auto& l : status["links"]) {
    for (const char* dir : {"a2b", "b2a"}) {
      const auto& d = l[dir];
      const bool have = d.contains("kernel") && !d["kernel"].is_null();
      const auto& now = d["current"];
      links.add({d["from"], d["to"], d["dev"],
                 format_rate(Rate{now["rate_bits_per_s"].get<uint64_t>()}),
                 format_duration(Duration{now["delay_us"].get<int64_t>()}),
                 // Bursty loss shows its long-run mean (burst_loss.h).
                 d.contains("gilbert_elliott")
                     ? "GE " + format_percent(
                                   Fraction{burst_loss_from_json(d["gilbert_elliott"]).mean_loss()})
                     : format_percent(Fraction{now["loss"].get<double>()}),
                 now.value("down", false) ? "DOWN" : "up",
                 have ? format_rate(Rate{d["kernel"]["rate_bits_per_s"].get<uint64_t>()})
                      : (live ? "MISSING" : "?"),
                 have ? std::to_string(d["kernel"]["sent_bytes"].get<uint64_t>()) + "B" : "",
                 have ? std::to_string(d["kernel"]["dropped_packets"].get<uint64_t>()) : ""});
    }
  }
  links.print(out);
  if (status.contains("cross_traffic")) print_cross_traffic(out, status);
  out << "\nroutes\n";
  const auto& listed = status["routes"];
  if (listed.is_array()) {
    TextTable routes({"NODE", "DESTINATION", "VIA", "DEV", "PATH"});
    for (const auto& r : listed) {
      std::string path;
      for (const auto& hop : r["path"]) path += (path.empty() ? "" : ">") + hop.get<std::string>();
      routes.add({r["node"], r["dst"], r["via"], r["dev"], path});
    }
    routes.print(out);
  } else if (listed.is_object()) {
    out << "  " << listed.value("count", 0) << " routes: " << listed.value("rule", "")
        << " (--routes lists them)\n";
  }
  if (status.contains("last_run_health")) print_health(out, status["last_run_health"]);
  if (!live) out << "\n(run as root to add what the kernel reports)\n";
}

namespace {

std::vector<std::string> node_names(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& n : plan.nodes) names.push_back(n.name);
  return names;
}

// The whole lab's route book (a slice's nodes route through other hosts' links), made once
// per status: at 1000 nodes it is a million routes. Empty, with the reason, when the plan
// cannot make it.
struct LabRoutes {
  std::optional<RouteBook> book;
  std::string error;
};

LabRoutes lab_routes(const LabStore& store, const LabState& s) {
  if (s.plan.nodes.empty()) return {};
  try {
    return {route_book_of(store.load_whole_plan(s)), ""};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

// The rule and the count of this host's nodes' routes; empty without a book.
nlohmann::json route_summary(const LabRoutes& routes, const LabState& s) {
  if (!routes.book) return nlohmann::json::object();
  return routes_to_json(*routes.book, node_names(s.plan), false);
}

// The routes of the lab's nodes, listed when asked for or few: the plan keeps their rule,
// and the whole lab's plan (every host's nodes and links) makes them again.
void add_routes(nlohmann::json& lab, const LabRoutes& routes, const LabState& s,
                RouteListing listing) {
  const auto& summary = lab["routes"];
  if (!summary.is_object() || listing == RouteListing::kNone ||
      !list_routes(summary.value("count", size_t{0}), listing == RouteListing::kAll)) {
    return;
  }
  if (!routes.book) {
    if (!routes.error.empty())
      lab["routes_error"] = "cannot make the routes from the plan: " + routes.error;
    return;
  }
  lab["routes"] = routes_to_json(*routes.book, node_names(s.plan), true);
}

// The delay lines' figures now, cumulative since `up`: packets released and dropped, and
// how late, with the histogram itself ("B:COUNT ... max:US", lateness_histogram.h) so that
// a reader polling status can subtract two and see one interval's lateness (bench/soak.sh).
// Asked of every node; a node without a delay line has no socket and answers at once.
void add_delay_lines(nlohmann::json& lab, const std::string& dir) {
  std::vector<std::string> nodes;
  for (const auto& n : lab["nodes"]) nodes.push_back(n.value("name", ""));
  constexpr int kTimeoutMs = 500;  // a delay line answers within milliseconds unless starved
  const DelayLineSnapshot lines = query_delay_lines(dir, nodes, kTimeoutMs);
  if (lines.empty()) return;
  LatenessHistogram late;
  uint64_t released = 0, dropped = 0;
  for (const auto& [node, queues] : lines) {
    for (const auto& [queue, q] : queues) {
      late.merge(q.lateness);
      released += q.released;
      dropped += q.queue_dropped + q.user_dropped;
    }
  }
  lab["delay_lines"] = {{"answering", lines.size()},
                        {"released", released},
                        {"dropped", dropped},
                        {"lateness_ms",
                         {{"p50", static_cast<double>(late.quantile_us(0.5)) / 1000},
                          {"p99", static_cast<double>(late.quantile_us(0.99)) / 1000},
                          {"max", static_cast<double>(late.max_us()) / 1000}}},
                        {"lateness_histogram", late.format()}};
}

}  // namespace

nlohmann::json lab_status(const LabStore& store, const std::string& lab, Kernel* kernel,
                          RouteListing listing) {
  const LabState s = store.load(lab);
  const LabRoutes routes = lab_routes(store, s);
  // The plan's own JSON (plan.cpp) for its nodes, links and cross traffic, so that status
  // and plan.json name every field alike.
  nlohmann::json j = {{"lab", s.lab},
                      {"phase", s.phase},
                      {"source", s.source},
                      {"created_at", s.created_at},
                      {"nodes", plan_nodes_to_json(s.plan)},
                      {"links", plan_links_to_json(s.plan)},
                      {"routes", route_summary(routes, s)},
                      {"backend", s.plan.nodes.empty() ? "" : backend_name(s.plan.backend)},
                      {"backend_reason", s.plan.backend_reason},
                      {"time_scale", s.time_scale}};
  for (const auto& t : s.plan.traffic) j["cross_traffic"].push_back(traffic_to_json(t));
  if (!s.plan_problem.empty()) j["plan_problem"] = s.plan_problem;
  // Where to watch it: prometheus_url and grafana_url when they run, metrics_url always.
  for (const auto& [what, key] :
       {std::pair{"exporter", "metrics_url"}, std::pair{"prometheus", "prometheus_url"},
        std::pair{"grafana", "grafana_url"}}) {
    if (const auto it = s.urls.find(what); it != s.urls.end()) j[key] = it->second;
  }
  add_current(j, store.dir(lab));
  // Each node's state after its last crash, pause or resume (node_faults.h).
  const auto states = lab_node_states(store, lab, s.plan);
  for (auto& node : j["nodes"]) node["state"] = states.at(node.value("name", ""));
  add_routes(j, routes, s, listing);
  add_last_run_health(j, store.dir(lab));
  add_live(j, kernel);
  add_compute(j, s);
  if (kernel) add_delay_lines(j, store.dir(lab));  // root: the delay lines' sockets are root's
  return j;
}

}  // namespace testbed
