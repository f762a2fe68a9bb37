#include "controller/observe/lab_status.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sstream>

#include "controller/dynamics/link_control.h"
#include "controller/dynamics/node_faults.h"
#include "controller/health/delay_line_query.h"
#include "controller/lab/plan.h"
#include "controller/lab/plan_table.h"
#include "controller/lab/route_book.h"

namespace testbed {
namespace {

const PlannedDirection& direction_of(const PlannedLink& l, size_t d) {
  return d ? l.b2a : l.a2b;
}

// Each direction's values now: the plan's, over what the timeline or `link set` changed
// since `up` (current.json).
void read_current_values(LabStatus& st, const std::string& dir) {
  const CurrentLinks current = read_current(dir);
  for (const auto& l : st.state.plan.links) {
    auto& pair = st.links.emplace_back();
    for (size_t d = 0; d < 2; ++d) {
      const DirectionParams& p = direction_of(l, d).params;
      DirectionNow& now = pair[d].now;
      now = {p.rate.bits_per_s, p.delay.us, p.loss.value, false};
      const std::string key = std::to_string(l.index) + ":" + kLinkDirections[d];
      if (const auto it = current.find(key); it != current.end())
        now = {it->second.rate.bits_per_s, it->second.delay.us, it->second.loss.value,
               it->second.down};
    }
  }
}

// The timeline's log: how many changes were applied, and the worst lag.
void read_timeline(LabStatus& st, const std::string& dir) {
  std::ifstream log(dir + "/timeline.csv");
  for (std::string line; std::getline(log, line);) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream fields(line);
    std::string scheduled, applied, lag;
    std::getline(fields, scheduled, ',');
    std::getline(fields, applied, ',');
    std::getline(fields, lag, ',');
    ++st.changes_applied;
    st.max_lag_ms = std::max(st.max_lag_ms, std::stod(lag));
  }
}

// What the kernel says of each node and shaped direction; needs root.
void read_kernel(LabStatus& st, Kernel& kernel) {
  using counts = std::map<std::string, Kernel::TrafficCount>;
  std::map<std::string, counts> background;  // by receiving namespace, one read each
  for (size_t i = 0; i < st.nodes.size(); ++i)
    st.nodes[i].present = kernel.namespace_exists(st.state.plan.nodes[i].ns);
  const bool cross = !st.state.plan.traffic.empty();
  for (size_t i = 0; i < st.links.size(); ++i) {
    for (size_t d = 0; d < 2; ++d) {
      const PlannedDirection& pd = direction_of(st.state.plan.links[i], d);
      DirectionStatus& ds = st.links[i][d];
      ds.kernel_asked = true;
      const auto live =
          kernel.namespace_exists(pd.ns) ? kernel.shaping(pd.ns, pd.dev) : std::nullopt;
      if (!live) continue;
      DirectionKernel k{live->config.rate_bytes_per_s * 8,
                        live->sent_bytes,
                        live->sent_packets,
                        live->dropped_packets,
                        cross,
                        std::nullopt};
      if (cross) {
        auto it = background.find(pd.rx_ns);
        if (it == background.end())
          it = background
                   .emplace(pd.rx_ns, kernel.namespace_exists(pd.rx_ns)
                                          ? kernel.traffic_counts(pd.rx_ns)
                                          : counts{})
                   .first;
        if (const auto c = it->second.find(pd.rx_dev); c != it->second.end())
          k.background_bytes = c->second.bytes;
      }
      ds.kernel = k;
    }
  }
}

// The emulation health of the lab's newest run (runs/ files are named by ISO 8601 time, so
// the greatest name is the newest), as `train` recorded it.
std::optional<LastRunHealth> last_run_health(const std::string& dir) {
  std::string newest;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/runs", ec)) {
    const std::string p = e.path().string();
    if (e.path().extension() == ".json" && p > newest) newest = p;
  }
  if (newest.empty()) return std::nullopt;
  try {
    std::ifstream in(newest);
    const auto run = nlohmann::json::parse(in);
    if (run.contains("health")) return LastRunHealth{newest, run["health"]};
  } catch (const std::exception&) {
    // a run being written: no health to show yet
  }
  return std::nullopt;
}

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
bool listing_wanted(const LabStatus& st, RouteListing listing) {
  return st.routes.is_object() && listing != RouteListing::kNone &&
         list_routes(st.routes.value("count", size_t{0}), listing == RouteListing::kAll);
}

void list_routes_asked(LabStatus& st, const LabRoutes& routes, RouteListing listing) {
  if (!listing_wanted(st, listing)) return;
  if (!routes.book) {
    if (!routes.error.empty())
      st.routes_error = "cannot make the routes from the plan: " + routes.error;
    return;
  }
  st.routes = routes_to_json(*routes.book, node_names(st.state.plan), true);
}

// The delay lines' figures now, cumulative since `up`: packets released and dropped, and
// how late. Asked of every node; a node without a delay line has no socket and answers at
// once.
std::optional<DelayLinesStatus> read_delay_lines(const std::string& dir,
                                                 const std::vector<std::string>& nodes) {
  constexpr int kTimeoutMs = 500;  // a delay line answers within milliseconds unless starved
  const DelayLineSnapshot lines = query_delay_lines(dir, nodes, kTimeoutMs);
  if (lines.empty()) return std::nullopt;
  DelayLinesStatus s;
  s.answering = lines.size();
  for (const auto& [node, queues] : lines) {
    for (const auto& [queue, q] : queues) {
      s.lateness.merge(q.lateness);
      s.released += q.released;
      s.dropped += q.queue_dropped + q.user_dropped;
    }
  }
  return s;
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
void print_cross_traffic(std::ostream& out, const LabStatus& st) {
  out << "\ncross traffic (docs/topologies.md#cross-traffic)\n";
  TextTable entries({"KIND", "FROM", "TO", "AMOUNT", "START", "STOP", "PORT", "PATH"});
  for (const auto& t : st.state.plan.traffic) {
    std::string path;
    for (const auto& d : t.path) path += (path.empty() ? "" : " ") + d;
    const std::string amount = t.kind == CrossTraffic::Kind::kBulk
                                   ? std::to_string(t.flows) + " flows"
                                   : format_rate(Rate{t.rate_bits_per_s}) +
                                         (t.kind == CrossTraffic::Kind::kPoisson ? " mean" : "");
    entries.add({kind_name(t.kind), t.from, t.to, amount, format_time(Duration{t.start_us}),
                 t.stop_us ? format_time(Duration{*t.stop_us}) : "-", std::to_string(t.port),
                 path});
  }
  entries.print(out);
  TextTable delivered({"FROM", "TO", "BACKGROUND DELIVERED"});
  for (size_t i = 0; i < st.links.size(); ++i) {
    for (size_t d = 0; d < 2; ++d) {
      const auto& k = st.links[i][d].kernel;
      if (!k || !k->background_bytes || *k->background_bytes == 0) continue;
      const PlannedDirection& pd = direction_of(st.state.plan.links[i], d);
      delivered.add({pd.from, pd.to, std::to_string(*k->background_bytes) + "B"});
    }
  }
  delivered.print(out);
}

// What `status` reads of the lab's own processes and control groups: the delay lines'
// answers and each node's compute, in the order of `nodes` and `namespaces`.
struct NodeReadings {
  std::optional<DelayLinesStatus> lines;
  std::optional<LabCompute> compute;
};

NodeReadings read_nodes(const std::string& dir, const std::vector<std::string>& cgroups,
                        const std::vector<std::string>& nodes,
                        const std::vector<std::string>& namespaces) {
  return {read_delay_lines(dir, nodes), read_lab_compute(cgroups, namespaces)};
}

// The namespaces the lab's records name (its own and those a slice adopted): the kernel's
// dumps of them are made before the plan says which devices to look at.
std::vector<std::string> recorded_namespaces(const LabState& s) {
  std::vector<std::string> names = s.adopted;
  for (const auto& ns : s.namespaces) names.push_back(ns.name);
  return names;
}

}  // namespace

LabStatus lab_status(const LabStore& store, const std::string& lab, Kernel* kernel,
                     RouteListing listing) {
  LabStatus st;
  // The records first (state.json): they name the nodes, their namespaces and control
  // groups (every planned node has an identity, in the plan's order), so that the kernel,
  // the delay lines and the groups are read while the plan is parsed. At 1000 nodes the
  // plan (5 MB) took 0.2 s, the kernel's dumps as long, the delay lines' answers 0.16 s and
  // the groups 0.1 s: one after the other they made `status` 0.56 s.
  st.state = store.load_records(lab);
  const std::string dir = store.dir(lab);
  std::vector<std::string> nodes, namespaces;
  for (const auto& id : st.state.identities) {
    nodes.push_back(id.node);
    namespaces.push_back(id.ns);
  }
  std::future<void> kernel_ahead;
  std::future<NodeReadings> readings;
  if (kernel) {
    kernel_ahead = std::async(std::launch::async, [kernel, ns = recorded_namespaces(st.state)] {
      kernel->read_ahead(ns);
    });
    // Root's: the delay lines' sockets are root's.
    if (!nodes.empty())
      readings =
          std::async(std::launch::async, read_nodes, dir, st.state.cgroups, nodes, namespaces);
  }
  store.load_plan(lab, st.state, LabStore::PlanSteps::kSkipped);  // status changes nothing
  const Plan& plan = st.state.plan;
  // Each node's state after its last crash, pause or resume (node_faults.h).
  const auto states = lab_node_states(store, lab, plan);
  for (const auto& n : plan.nodes) st.nodes.push_back({std::nullopt, states.at(n.name)});
  read_current_values(st, dir);
  read_timeline(st, dir);
  // The count and rule as plan.json keeps them; the book (a million routes at 1000 nodes)
  // is made only when they are to be listed, or when an older plan.json lacks them.
  std::optional<LabRoutes> routes;
  if (plan.route_summary.is_object()) {
    st.routes = plan.route_summary;
  } else {
    routes = lab_routes(store, st.state);
    st.routes = route_summary(*routes, st.state);
  }
  if (listing_wanted(st, listing)) {
    if (!routes) routes = lab_routes(store, st.state);
    list_routes_asked(st, *routes, listing);
  }
  st.last_run = last_run_health(dir);
  if (!kernel) {
    st.compute = read_lab_compute(st.state);
    return st;
  }
  st.live = true;
  kernel_ahead.get();
  read_kernel(st, *kernel);
  NodeReadings r = readings.valid() ? readings.get() : NodeReadings{};
  // Read again by the plan's nodes where the records do not name them in its order (a lab
  // recorded before identities were kept): each node's figures are shown beside it.
  if (const auto planned = node_names(plan); nodes != planned)
    r = {read_delay_lines(dir, planned), read_lab_compute(st.state)};
  st.delay_lines = std::move(r.lines);
  st.compute = std::move(r.compute);
  return st;
}

void print_lab_status(std::ostream& out, const LabStatus& st) {
  const LabState& s = st.state;
  out << "lab " << s.lab << " (" << s.phase << ", from " << s.source << ", since " << s.created_at
      << ")\n\nnodes\n";
  TextTable nodes({"NODE", "NAMESPACE", "ADDRESS", "PRESENT", "STATE"});
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    const PlannedNode& n = s.plan.nodes[i];
    const auto& present = st.nodes[i].present;
    nodes.add({n.name, n.ns, n.address.str(), !present ? "?" : (*present ? "yes" : "NO"),
               st.nodes[i].state});
  }
  nodes.print(out);
  if (st.compute) print_compute(out, s.plan, *st.compute);
  for (const auto& [what, name] :
       {std::pair{"exporter", "metrics"}, std::pair{"prometheus", "prometheus"},
        std::pair{"grafana", "grafana"}}) {
    if (const auto it = s.urls.find(what); it != s.urls.end())
      out << name << ": " << it->second << "\n";
  }
  out << "\nbackend for delay, jitter and loss: "
      << (s.plan.nodes.empty() ? "" : backend_name(s.plan.backend)) << " (" << s.plan.backend_reason
      << ")\n";
  out << "timeline: " << st.changes_applied << " scheduled changes applied, worst lag "
      << nlohmann::json(st.max_lag_ms) << " ms\n";
  out << "\nlinks (per direction, current values)\n";
  TextTable links(
      {"FROM", "TO", "DEV", "RATE", "DELAY", "LOSS", "STATE", "KERNEL RATE", "SENT", "DROPS"});
  for (size_t i = 0; i < st.links.size(); ++i) {
    for (size_t d = 0; d < 2; ++d) {
      const PlannedDirection& pd = direction_of(s.plan.links[i], d);
      const DirectionStatus& ds = st.links[i][d];
      const auto& k = ds.kernel;
      links.add({pd.from, pd.to, pd.dev, format_rate(Rate{ds.now.rate_bits_per_s}),
                 format_duration(Duration{ds.now.delay_us}),
                 // Bursty loss shows its long-run mean (burst_loss.h).
                 pd.params.burst_loss
                     ? "GE " + format_percent(Fraction{pd.params.burst_loss->mean_loss()})
                     : format_percent(Fraction{ds.now.loss}),
                 ds.now.down ? "DOWN" : "up",
                 k ? format_rate(Rate{k->rate_bits_per_s}) : (st.live ? "MISSING" : "?"),
                 k ? std::to_string(k->sent_bytes) + "B" : "",
                 k ? std::to_string(k->dropped_packets) : ""});
    }
  }
  links.print(out);
  if (!s.plan.traffic.empty()) print_cross_traffic(out, st);
  out << "\nroutes\n";
  if (st.routes.is_array()) {
    // HELD AS: the prefix the node's kernel routes it by (routes are aggregated as a router
    // holds them: one prefix serves every destination with the same next hop beneath it).
    TextTable routes({"NODE", "DESTINATION", "VIA", "DEV", "HELD AS", "PATH"});
    for (const auto& r : st.routes) {
      std::string path;
      for (const auto& hop : r["path"]) path += (path.empty() ? "" : ">") + hop.get<std::string>();
      routes.add({r["node"], r["dst"], r["via"], r["dev"], r.value("kernel_prefix", "-"), path});
    }
    routes.print(out);
  } else if (st.routes.is_object()) {
    out << "  " << st.routes.value("count", 0) << " routes: " << st.routes.value("rule", "");
    if (st.routes.contains("kernel_prefixes"))
      out << ", held as " << st.routes["kernel_prefixes"] << " prefixes";
    out << " (--routes lists them)\n";
  }
  if (st.last_run)
    print_health(out, {{"file", st.last_run->file}, {"health", st.last_run->health}});
  if (!st.live) out << "\n(run as root to add what the kernel reports)\n";
}

}  // namespace testbed
