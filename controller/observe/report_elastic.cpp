#include "controller/observe/report_elastic.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "controller/observe/report.h"

namespace testbed {
namespace {

// A run's figures read defensively: a results file is anyone's to edit, and a field of the
// wrong shape leaves that figure out rather than ending the report.
const nlohmann::json* at_path(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

const nlohmann::json* object_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = at_path(j, path);
  return at && at->is_object() ? at : nullptr;
}

const nlohmann::json* array_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = at_path(j, path);
  return at && at->is_array() ? at : nullptr;
}

// An elastic run's membership section: DiLoCo's under "diloco", the parameter server's
// at the top; null for a run without one.
const nlohmann::json& membership_of(const nlohmann::json& run) {
  static const nlohmann::json kNone = nlohmann::json::object();
  if (const auto* m = object_at(run, {"diloco", "membership"})) return *m;
  if (const auto* m = object_at(run, {"membership"})) return *m;
  return kNone;
}

// A number at `key`, or `fallback` when it is missing or of another type.
double number_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

struct UtilizationColumn {
  std::string title;
  std::map<std::string, double> per_worker;
};

std::vector<UtilizationColumn> utilization_columns(const std::vector<nlohmann::json>& runs,
                                                   const std::vector<std::string>& labels,
                                                   std::vector<std::string>& workers) {
  std::vector<UtilizationColumn> columns;
  auto add_worker = [&](const std::string& w) {
    if (std::find(workers.begin(), workers.end(), w) == workers.end()) workers.push_back(w);
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto* wall = object_at(runs[i], {"compute_utilization", "per_worker"});
    if (!wall || wall->empty()) continue;
    UtilizationColumn c{labels[i], {}};
    for (const auto& [w, u] : wall->items())
      if (plot_label(w) && u.is_number()) c.per_worker[w] = u.get<double>(), add_worker(w);
    columns.push_back(std::move(c));
    // A built-in elastic run has it in its membership section, a launched job at the top.
    const auto* in =
        object_at(membership_of(runs[i]), {"compute_utilization_of_member_time", "per_worker"});
    if (!in) in = object_at(runs[i], {"compute_utilization_of_member_time", "per_worker"});
    if (!in) continue;
    UtilizationColumn t{labels[i] + ":time_in", {}};
    for (const auto& [w, figures] : in->items())
      if (plot_label(w) && figures.is_object() && figures.contains("utilization") &&
          figures["utilization"].is_number())
        t.per_worker[w] = figures["utilization"].get<double>(), add_worker(w);
    columns.push_back(std::move(t));
  }
  return columns;
}

}  // namespace

std::string utilization_table(const std::vector<nlohmann::json>& runs,
                              const std::vector<std::string>& labels) {
  std::vector<std::string> workers;
  const auto columns = utilization_columns(runs, labels, workers);
  if (columns.empty() || workers.empty()) return "";
  std::ostringstream out;
  out << "node";
  for (const auto& c : columns) out << " " << c.title;
  out << "\n";
  for (const auto& w : workers) {
    out << w;
    for (const auto& c : columns) {
      const auto it = c.per_worker.find(w);
      if (it == c.per_worker.end()) {
        out << " ?";
      } else {
        out << " " << it->second;
      }
    }
    out << "\n";
  }
  return out.str();
}

void add_elastic_plots(const std::vector<nlohmann::json>& runs,
                       const std::vector<std::string>& labels, const std::string& out_dir,
                       ReportFiles& r, std::ostream& gp) {
  if (const std::string table = utilization_table(runs, labels); !table.empty()) {
    std::vector<std::string> workers;
    const size_t columns = utilization_columns(runs, labels, workers).size();
    r.files.emplace_back("utilization.dat", table);
    r.pngs.push_back("utilization.png");
    // Clustered bars: a cluster per worker, a bar per run (and per run's time in).
    gp << "set output " << gnuplot_quoted(out_dir + "/utilization.png") << "\n"
       << "set title 'Compute utilization per worker (time computing over wall time; "
          ":time_in over its time as a member)'\nset xlabel ''\n"
          "set ylabel 'compute utilization'\nset yrange [0:1.05]\nset datafile missing '?'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.7 border -1\nset boxwidth 0.9\n"
          "set xtics rotate by 30 right autofreq\nplot ";
    for (size_t c = 0; c < columns; ++c) {
      gp << (c ? ", \\\n  '' " : gnuplot_quoted(out_dir + "/utilization.dat") + " ") << "using "
         << c + 2 << (c == 0 ? ":xtic(1)" : "") << " title columnheader(" << c + 2 << ")";
    }
    gp << "\nset style data lines\nset xtics norotate autofreq\nset yrange [*:*]\n";
  }

  // Members over time: one block per elastic run, a step per change, held to the run's end.
  std::ostringstream steps, marks;
  std::vector<std::string> drawn;
  for (size_t i = 0; i < runs.size(); ++i) {
    const nlohmann::json& membership = membership_of(runs[i]);
    const auto* over_time = array_at(membership, {"members_over_time"});
    if (!over_time || over_time->empty()) continue;
    steps << "# " << labels[i] << "\n";
    double last_t = 0, last_k = 0;
    for (const auto& p : *over_time) {
      if (!p.is_object() || !p.contains("t_s") || !p.contains("members") || !p["t_s"].is_number() ||
          !p["members"].is_number())
        continue;
      last_t = p["t_s"].get<double>();
      last_k = p["members"].get<double>();
      steps << last_t << " " << last_k << "\n";
    }
    const double wall = number_or(runs[i], "wall_s", 0.0);
    if (wall > last_t) steps << wall << " " << last_k << "\n";
    steps << "\n\n";
    marks << "# " << labels[i] << "\n";
    if (const auto* changes = array_at(membership, {"changes"})) {
      // Each change at its time, at the members it left (the steps' value from then).
      for (const auto& c : *changes) {
        if (!c.is_object() || !c.contains("t_s") || !c["t_s"].is_number()) continue;
        const std::string node =
            c.contains("node") && c["node"].is_string() ? c["node"].get<std::string>() : "";
        const std::string what =
            c.contains("change") && c["change"].is_string() ? c["change"].get<std::string>() : "";
        if (!plot_label(node) || !plot_label(what) || node.find(' ') != std::string::npos) continue;
        const double t = c["t_s"].get<double>();
        double k = 0;
        for (const auto& p : *over_time) {
          const double at = number_or(p, "t_s", -1.0);
          if (at >= 0 && at <= t) k = number_or(p, "members", k);
        }
        marks << t << " " << k << " " << node << ":" << what << "\n";
      }
    }
    marks << "0 -1 none\n\n\n";  // below the axis: every block has a row gnuplot can read
    drawn.push_back(labels[i]);
  }
  if (drawn.empty()) return;
  r.files.emplace_back("membership.dat", steps.str());
  r.files.emplace_back("membership_changes.dat", marks.str());
  r.pngs.push_back("membership.png");
  gp << "set output " << gnuplot_quoted(out_dir + "/membership.png") << "\n"
     << "set title 'Elastic runs: members of the next outer step over wall time'\n"
        "set xlabel 'seconds'\nset ylabel 'members'\nset yrange [0:*]\nset xtics autofreq\n"
        "set ytics 1\nplot ";
  for (size_t k = 0; k < drawn.size(); ++k) {
    gp << (k ? ", \\\n  " : "") << gnuplot_quoted(out_dir + "/membership.dat") << " index " << k
       << " using 1:2 with steps lw 2 title " << gnuplot_quoted(drawn[k]) << ", "
       << gnuplot_quoted(out_dir + "/membership_changes.dat") << " index " << k
       << " using 1:2:3 with labels point pt 7 offset 0,0.8 notitle";
  }
  gp << "\nset ytics autofreq\nset yrange [*:*]\n";
}

}  // namespace testbed
