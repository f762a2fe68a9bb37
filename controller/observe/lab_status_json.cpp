// `testbed status --json`: the plan's own JSON of each node and link (plan.cpp), so that
// status and plan.json name every field alike, with the readings beside each. Written a
// node and a link at a time: the document of a 10,000-leaf star is 32 MB, and its whole
// tree, built before a byte was printed, was most of the memory of its `status --json`.
#include <string_view>

#include "controller/lab/cross_traffic_plan.h"
#include "controller/lab/plan.h"
#include "controller/observe/lab_status.h"

namespace testbed {
namespace {

// Spaces for `depth` levels of nlohmann's dump(2).
std::string pad(int depth) {
  return std::string(2 * static_cast<size_t>(depth), ' ');
}

// `j` dumped with two-space indents, its lines after the first set `depth` levels in: as
// it would stand at that depth of a whole document's dump(2). A dump's strings hold no
// raw newline (JSON escapes it), so each newline starts a line.
void write_at(std::ostream& out, const nlohmann::json& j, int depth) {
  const std::string text = j.dump(2);
  const std::string_view rest(text);
  size_t from = 0;
  for (size_t nl; (nl = rest.find('\n', from)) != std::string_view::npos; from = nl + 1)
    out << rest.substr(from, nl + 1 - from) << pad(depth);
  out << rest.substr(from);
}

// A list of `n` elements, each made by `element(i)` only when it is written.
template <class Element>
void write_list(std::ostream& out, size_t n, const Element& element, int depth) {
  if (n == 0) {
    out << "[]";
    return;
  }
  out << "[";
  for (size_t i = 0; i < n; ++i) {
    out << (i ? ",\n" : "\n") << pad(depth + 1);
    write_at(out, element(i), depth + 1);
  }
  out << "\n" << pad(depth) << "]";
}

nlohmann::json node_json(const LabStatus& st, size_t i) {
  nlohmann::json node = plan_node_to_json(st.state.plan.nodes[i]);
  node["state"] = st.nodes[i].state;
  node["present"] = st.nodes[i].present ? nlohmann::json(*st.nodes[i].present) : nlohmann::json();
  if (st.compute && i < st.compute->nodes.size())
    node["compute_used"] = compute_used_to_json(st.compute->cgroup, st.compute->nodes[i]);
  return node;
}

nlohmann::json link_json(const LabStatus& st, size_t i) {
  nlohmann::json link = plan_link_to_json(st.state.plan.links[i]);
  for (size_t d = 0; d < 2; ++d) {
    const DirectionStatus& ds = st.links[i][d];
    auto& out = link[kLinkDirections[d]];
    out["current"] = {{"rate_bits_per_s", ds.now.rate_bits_per_s},
                      {"delay_us", ds.now.delay_us},
                      {"loss", ds.now.loss},
                      {"down", ds.now.down}};
    if (!ds.kernel_asked) continue;
    if (!ds.kernel) {
      out["kernel"] = nullptr;
      continue;
    }
    const DirectionKernel& k = *ds.kernel;
    out["kernel"] = {{"rate_bits_per_s", k.rate_bits_per_s},
                     {"sent_bytes", k.sent_bytes},
                     {"sent_packets", k.sent_packets},
                     {"dropped_packets", k.dropped_packets}};
    if (k.counts_background)
      out["kernel"]["background_bytes"] =
          k.background_bytes ? nlohmann::json(*k.background_bytes) : nlohmann::json();
  }
  return link;
}

// Everything but the nodes and the links, which hold null here to keep their places in
// the order of the keys.
nlohmann::json head_json(const LabStatus& st) {
  const LabState& s = st.state;
  nlohmann::json j = {
      {"lab", s.lab},
      {"phase", s.phase},
      {"source", s.source},
      {"created_at", s.created_at},
      {"nodes", nullptr},
      {"links", nullptr},
      {"routes", st.routes},
      {"backend", s.plan.nodes.empty() ? "" : backend_name(s.plan.backend)},
      {"backend_reason", s.plan.backend_reason},
      {"time_scale", s.time_scale},
      {"timeline", {{"changes_applied", st.changes_applied}, {"max_lag_ms", st.max_lag_ms}}}};
  if (!st.routes_error.empty()) j["routes_error"] = st.routes_error;
  for (const auto& t : s.plan.traffic) j["cross_traffic"].push_back(traffic_to_json(t));
  if (!s.plan_problem.empty()) j["plan_problem"] = s.plan_problem;
  // Where to watch it: prometheus_url and grafana_url when they run, metrics_url always.
  for (const auto& [what, key] :
       {std::pair{"exporter", "metrics_url"}, std::pair{"prometheus", "prometheus_url"},
        std::pair{"grafana", "grafana_url"}}) {
    if (const auto it = s.urls.find(what); it != s.urls.end()) j[key] = it->second;
  }
  if (st.last_run)
    j["last_run_health"] = {{"file", st.last_run->file}, {"health", st.last_run->health}};
  // The histogram itself ("B:COUNT ... max:US", lateness_histogram.h), so that a reader
  // polling status can subtract two and see one interval's lateness (bench/soak.sh).
  if (st.delay_lines) {
    const LatenessHistogram& late = st.delay_lines->lateness;
    j["delay_lines"] = {{"answering", st.delay_lines->answering},
                        {"released", st.delay_lines->released},
                        {"dropped", st.delay_lines->dropped},
                        {"lateness_ms",
                         {{"p50", static_cast<double>(late.quantile_us(0.5)) / 1000},
                          {"p99", static_cast<double>(late.quantile_us(0.99)) / 1000},
                          {"max", static_cast<double>(late.max_us()) / 1000}}},
                        {"lateness_histogram", late.format()}};
  }
  return j;
}

}  // namespace

void write_status_json(std::ostream& out, const LabStatus& st, int depth) {
  const nlohmann::json head = head_json(st);  // kept: items() refers to it
  bool first = true;
  out << "{";
  for (const auto& [key, value] : head.items()) {
    out << (first ? "\n" : ",\n") << pad(depth + 1) << nlohmann::json(key).dump() << ": ";
    first = false;
    if (key == "nodes") {
      write_list(
          out, st.nodes.size(), [&](size_t i) { return node_json(st, i); }, depth + 1);
    } else if (key == "links") {
      write_list(
          out, st.links.size(), [&](size_t i) { return link_json(st, i); }, depth + 1);
    } else {
      write_at(out, value, depth + 1);
    }
  }
  out << "\n" << pad(depth) << "}";
}

}  // namespace testbed
