#include "controller/lab/plan_table.h"

#include <algorithm>

namespace testbed {

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows_) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

static std::string shaping_cell(const PlannedDirection& d) {
  return format_rate(d.params.rate) + " " + format_duration(d.params.delay) + " " +
         (d.params.burst_loss ? "GE " + format_percent(Fraction{d.params.burst_loss->mean_loss()})
                              : format_percent(d.params.loss)) +
         (d.params.jitter.us ? " jitter " + format_duration(d.params.jitter) : "");
}

void print_routes(const std::vector<PlannedRoute>& routes, std::ostream& out) {
  TextTable table({"NODE", "DESTINATION", "VIA", "DEV", "PATH"});
  for (const auto& r : routes) {
    std::string path;
    for (const auto& hop : r.path) path += (path.empty() ? "" : ">") + hop;
    table.add({r.node, r.route.dst.str(), r.route.via.str(), r.route.dev, path});
  }
  table.print(out);
}

bool list_routes(size_t count, bool asked) {
  return asked || count <= kRoutesListedUnasked;
}

void print_plan_table(const Plan& plan, std::ostream& out, bool with_steps, bool with_routes) {
  out << "lab " << plan.lab << " (" << plan.source_file << "): " << plan.nodes.size() << " nodes, "
      << plan.links.size() << " links, " << route_count(plan) << " routes by "
      << (plan.metric == RouteMetric::kHops ? "hop count" : "delay") << ", pool " << plan.pool.str()
      << "\n\nnodes\n";
  TextTable nodes({"NODE", "NAMESPACE", "ADDRESS"});
  for (const auto& n : plan.nodes) nodes.add({n.name, n.ns, n.address.str()});
  nodes.print(out);

  out << "\nlinks (rate delay loss per direction)\n";
  TextTable links({"#", "A", "B", "A-IF", "B-IF", "SUBNET", "A->B", "B->A"});
  for (const auto& l : plan.links) {
    links.add({std::to_string(l.index), l.a, l.b, l.if_a, l.if_b, l.subnet.str(),
               shaping_cell(l.a2b), shaping_cell(l.b2a)});
  }
  links.print(out);

  out << "\nroutes\n";
  if (list_routes(route_count(plan), with_routes)) {
    print_routes(planned_routes(plan), out);
  } else if (plan.routes) {
    out << "  " << route_count(plan) << " routes: " << plan.routes->rule()
        << " (--routes lists them)\n";
  }

  if (with_steps) {
    out << "\nsteps (" << plan.steps.size() << ")\n";
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      out << "  " << i + 1 << ". " << describe_step(plan.steps[i]) << "\n";
    }
  }
  for (const auto& note : plan.notes) out << "\nnote: " << note << "\n";
}

}  // namespace testbed
