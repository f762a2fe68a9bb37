#include "controller/observe/report.h"

#include "controller/observe/report_elastic.h"
#include "netns/netns_exec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <system_error>

namespace testbed {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

std::string gnuplot_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> run_labels(const std::vector<nlohmann::json>& runs) {
  std::map<std::string, int> count, seen;
  std::vector<std::string> strategies;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string s = runs[i].value("strategy", "?");
    // A word, as means.dat's label column needs.
    std::replace(s.begin(), s.end(), ' ', '_');
    strategies.push_back(plot_label(s) ? s : "run" + std::to_string(i + 1));
    ++count[strategies.back()];
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string& s = strategies[i];
    const int k = ++seen[s];
    if (count[s] == 1) {
      out.push_back(s);
    } else if (r.contains("seed") && r["seed"].is_number_unsigned()) {
      out.push_back(s + "/seed" + std::to_string(r["seed"].get<uint64_t>()));
    } else {
      out.push_back(s + "/run" + std::to_string(k));
    }
  }
  return out;
}

bool plot_label(const std::string& s) {
  // 64 characters: the longest strategy or consistency name is a tenth of that, and a
  // legend of hundreds of characters is no label.
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(" ._:/()=+,-", c) != nullptr;
  });
}

std::string report_run_problem(const nlohmann::json& run) {
  if (!run.is_object()) return "the run is not a JSON object";
  const auto wrong = [&](const char* field, auto is_ok) {
    const auto it = run.find(field);
    return it != run.end() && !is_ok(*it);
  };
  const auto is_string = [](const nlohmann::json& v) { return v.is_string(); };
  const auto is_number = [](const nlohmann::json& v) { return v.is_number(); };
  const auto numbers = [](const nlohmann::json& v) {
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const auto& x) { return x.is_number(); });
  };
  const auto points = [](const nlohmann::json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const auto& p) {
             return p.is_array() && p.size() >= 2 && p[0].is_number() && p[1].is_number();
           });
  };
  for (const char* field : {"strategy", "consistency"})
    if (wrong(field, is_string)) return std::string(field) + " is not a string";
  for (const char* field : {"mean_iteration_s", "target_loss"})
    if (wrong(field, is_number)) return std::string(field) + " is not a number";
  if (wrong("iteration_s", numbers)) return "iteration_s is not a list of numbers";
  if (wrong("loss_curve", points)) return "loss_curve is not a list of [seconds, loss] pairs";
  return "";
}

std::vector<LinkSeries> link_series(const std::string& csv) {
  // unix_s,link,node,peer,configured_bits_per_s,transmit_bytes[,background_bytes]
  std::map<std::pair<std::string, std::string>, LinkSeries> series;
  struct Last {
    double t, bytes, background;
  };
  std::map<std::pair<std::string, std::string>, Last> last;
  double t0 = NAN;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    const auto f = split(line, ',');
    if ((f.size() != 6 && f.size() != 7) || f[0] == "unix_s") continue;
    double t = 0, configured = 0, bytes = 0, background = NAN;
    try {
      t = std::stod(f[0]);
      configured = std::stod(f[4]);
      bytes = std::stod(f[5]);
      if (f.size() == 7 && !f[6].empty()) background = std::stod(f[6]);
    } catch (const std::exception&) {
      continue;  // a line cut short
    }
    // Names reach the plots' titles: a row whose node or peer is not a plain label is
    // dropped, as a cut-short row is.
    if (!plot_label(f[2]) || !plot_label(f[3])) continue;
    if (std::isnan(t0)) t0 = t;
    const auto key = std::pair{f[2], f[3]};
    auto& s = series[key];
    s.node = f[2];
    s.peer = f[3];
    s.t0_unix_s = t0;
    const auto prev = last.find(key);
    // The first sample of a direction has nothing to difference with; a counter that went
    // back (a lab brought up again into the same directory) starts anew.
    if (prev != last.end() && t > prev->second.t && bytes >= prev->second.bytes) {
      const double dt = t - prev->second.t;
      s.t.push_back(t - t0);
      s.configured_mbit.push_back(configured / 1e6);
      s.measured_mbit.push_back((bytes - prev->second.bytes) * 8 / dt / 1e6);
      // NaN where a sample has no count (before the counters, or a lab without them).
      const double bg = background - prev->second.background;
      s.background_mbit.push_back(bg >= 0 ? bg * 8 / dt / 1e6 : NAN);
    }
    last[key] = {t, bytes, background};
  }
  std::vector<LinkSeries> out;
  for (auto& [key, s] : series) {
    if (s.t.empty()) continue;
    // Kept only where some sample counted cross traffic: a lab without has no such line.
    if (std::all_of(s.background_mbit.begin(), s.background_mbit.end(),
                    [](double x) { return std::isnan(x); }))
      s.background_mbit.clear();
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<FaultInterval> fault_intervals(const std::string& timeline_csv, double zero_unix_s) {
  // scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error,state
  std::vector<FaultInterval> out;
  std::map<std::pair<std::string, std::string>, size_t> open;  // (from, to) -> its interval
  std::istringstream in(timeline_csv);
  for (std::string line; std::getline(in, line);) {
    const auto f = split(line, ',');
    if (f.size() != 11 || f[9] != "\"\"") continue;  // the header, a failed or cut-short row
    double applied = 0;
    try {
      applied = zero_unix_s + std::stod(f[1]);
    } catch (const std::exception&) {
      continue;
    }
    const bool node = f[3].empty();
    const std::pair<std::string, std::string> key{f[4], node ? "" : f[5]};
    const std::string& state = f[10];
    // A node's CPU share changing (node_compute_control.h) neither starts nor ends a fault.
    if (node && state.rfind("cpus=", 0) == 0) continue;
    const auto it = open.find(key);
    const bool faulted = state == "down" || state == "paused" || state == "crashed";
    if (it != open.end() && (!faulted || out[it->second].state != state)) {
      out[it->second].to_unix_s = applied;  // ended, or became another fault
      open.erase(it);
    }
    if (faulted && open.count(key) == 0) {
      open[key] = out.size();
      out.push_back({key.first, key.second, state, applied, INFINITY});
    }
  }
  return out;
}

std::vector<FaultInterval> lab_fault_intervals(const std::string& lab_dir) {
  double zero = 0;
  std::ifstream z(lab_dir + "/timeline-start");
  if (!(z >> zero)) return {};
  std::ostringstream csv;
  csv << std::ifstream(lab_dir + "/timeline.csv").rdbuf();
  return fault_intervals(csv.str(), zero);
}

ReportFiles build_report(const ReportInput& in, const std::string& out_dir) {
  ReportFiles r;
  r.script = "report.gp";
  std::ostringstream gp;
  // Legends outside the data; names as written (enhanced text would make drps_wsp's "_w"
  // a subscript).
  gp << "# drawn by testbed report\nset terminal pngcairo size 1200,700 font 'sans,10'\n"
        "set termoption noenhanced\nset grid\nset key outside right top\n";

  if (!in.runs.empty()) {
    std::ostringstream iters, means;
    const auto labels = run_labels(in.runs);
    for (size_t i = 0; i < in.runs.size(); ++i) {
      const auto& run = in.runs[i];
      iters << "# " << labels[i] << "\n";  // a plain label (plot_label)
      const auto times = run.value("iteration_s", std::vector<double>{});
      for (size_t k = 0; k < times.size(); ++k) iters << k + 1 << " " << times[k] << "\n";
      iters << "\n\n";  // a new gnuplot index per run
      // Strategy names have no spaces, so they are plain words gnuplot reads as labels.
      means << i << " " << run.value("mean_iteration_s", 0.0) << " " << labels[i] << "\n";
    }
    r.files.emplace_back("iterations.dat", iters.str());
    r.files.emplace_back("means.dat", means.str());
    // A tick per iteration while they fit (20 at this width), else gnuplot's own spacing:
    // 500 ticks ran their labels together. Runs without iteration times (a results file
    // that left its series out, scripts/slim-results.py) are not drawn; with none, there
    // is no such plot.
    size_t most = 0;
    std::vector<size_t> timed;
    for (size_t i = 0; i < in.runs.size(); ++i) {
      const size_t n = in.runs[i].value("iteration_s", std::vector<double>{}).size();
      most = std::max(most, n);
      if (n > 0) timed.push_back(i);
    }
    if (!timed.empty()) {
      r.pngs.push_back("iteration_time.png");
      gp << "set output " << gnuplot_quoted(out_dir + "/iteration_time.png") << "\n"
         << "set title 'Iteration time per strategy'\nset xlabel 'iteration'\n"
            "set ylabel 'seconds per iteration'\nset yrange [0:*]\n"
         << (most <= 20 ? "set xtics 1\n" : "set xtics autofreq\nset format x '%.0f'\n") << "plot ";
      for (size_t k = 0; k < timed.size(); ++k) {
        gp << (k ? ", \\\n  " : "") << gnuplot_quoted(out_dir + "/iterations.dat") << " index "
           << timed[k] << " using 1:2 with linespoints title " << gnuplot_quoted(labels[timed[k]]);
      }
      gp << "\n";
    }
    r.pngs.push_back("strategies.png");
    gp << "set output " << gnuplot_quoted(out_dir + "/strategies.png") << "\n"
       << "set title 'Mean iteration time per run (lower is faster)'\nset xlabel ''\n"
          "set ylabel 'seconds per iteration'\nset format x '%g'\n"
          // Rotated and right-aligned at their bars, so long names never run together.
          "set style fill solid 0.6\nset boxwidth 0.7\nset xtics rotate by 30 right autofreq\n"
          "unset key\n"
          "plot "
       << gnuplot_quoted(out_dir + "/means.dat")
       << " using 1:2:xtic(3) with boxes, '' using 1:2:(sprintf('%.2f s', $2)) with labels "
          "offset 0,0.7\nset xtics norotate autofreq\nset key outside right top\n";
  }

  // Held-out loss against wall time, for the runs that train a job on a parameter server:
  // the figure that judges approximate strategies (and the target they aimed at).
  std::vector<const nlohmann::json*> converging;
  std::vector<std::string> converging_labels, converging_names;
  const auto all_labels = run_labels(in.runs);
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const auto& run = in.runs[i];
    if (!run.contains("loss_curve") || run["loss_curve"].empty()) continue;
    converging.push_back(&run);
    converging_names.push_back(all_labels[i]);
    // The consistency model says more than the strategy's name (ssp(2)); a repeated run
    // keeps its seed or number beside it.
    const std::string strategy = run.value("strategy", "?");
    const std::string consistency = run.value("consistency", "");
    if (plot_label(consistency) && plot_label(strategy)) {
      converging_labels.push_back(consistency + all_labels[i].substr(strategy.size()));
    } else {
      converging_labels.push_back(all_labels[i]);
    }
  }
  if (!converging.empty()) {
    std::ostringstream data;
    for (size_t i = 0; i < converging.size(); ++i) {
      const auto* run = converging[i];
      data << "# " << converging_names[i] << "\n";  // a plain label (plot_label)
      for (const auto& p : (*run)["loss_curve"]) data << p[0] << " " << p[1] << "\n";
      data << "\n\n";
    }
    r.files.emplace_back("loss.dat", data.str());
    r.pngs.push_back("loss.png");
    gp << "set output " << gnuplot_quoted(out_dir + "/loss.png") << "\n"
       << "set title 'Held-out loss against wall time'\nset xlabel 'seconds'\n"
          "set ylabel 'held-out loss'\nset yrange [*:*]\nset xtics autofreq\n";
    const double target = converging.front()->value("target_loss", 0.0);
    if (target > 0)
      gp << "set arrow 1 from graph 0, first " << target << " to graph 1, first " << target
         << " nohead dashtype 2\n";
    gp << "plot ";
    for (size_t i = 0; i < converging.size(); ++i) {
      // Const: a mutable std::string would pick std::quoted by argument-dependent lookup.
      const std::string title = converging_labels[i];
      gp << (i ? ", \\\n  " : "") << gnuplot_quoted(out_dir + "/loss.dat") << " index " << i
         << " using 1:2 with steps lw 2 title " << gnuplot_quoted(title);
    }
    gp << "\nunset arrow 1\n";
  }

  // Compute utilization per worker, and an elastic run's membership over time.
  add_elastic_plots(in.runs, all_labels, out_dir, r, gp);

  const auto links = link_series(in.link_samples_csv);
  if (!links.empty()) {
    std::ostringstream data;
    for (const auto& s : links) {
      data << "# " << s.node << " > " << s.peer
           << (s.background_mbit.empty() ? "\n" : ": configured, all, cross traffic\n");
      for (size_t i = 0; i < s.t.size(); ++i) {
        data << s.t[i] << " " << s.configured_mbit[i] << " " << s.measured_mbit[i];
        if (!s.background_mbit.empty()) data << " " << s.background_mbit[i];
        data << "\n";
      }
      data << "\n\n";
    }
    r.files.emplace_back("links.dat", data.str());
    r.pngs.push_back("links.png");
    // One small plot per direction, four to a row.
    const size_t cols = 4, rows = (links.size() + cols - 1) / cols;
    gp << "set terminal pngcairo size 1600," << std::max<size_t>(300, rows * 260)
       << " font 'sans,8'\nset output " << gnuplot_quoted(out_dir + "/links.png")
       << "\nset multiplot layout " << rows << "," << cols
       << " title 'Configured vs measured rate per link direction (Mbit/s over seconds; "
          "shaded: the direction cut, red; a node of it paused or crashed, orange)'\n"
          "set key outside below horizontal\nset yrange [0:*]\nset xlabel 'seconds'\n"
          "set ylabel 'Mbit/s'\nset format x '%g'\n";
    for (size_t i = 0; i < links.size(); ++i) {
      const LinkSeries& l = links[i];
      // Faults shaded behind the lines: the direction's cuts (red) and its two nodes'
      // pauses and crashes (orange), on the samples' clock.
      int shaded = 0;
      for (const auto& f : in.faults) {
        const bool cut = f.state == "down" && f.from == l.node && f.to == l.peer;
        const bool node = f.to.empty() && (f.from == l.node || f.from == l.peer);
        if (!cut && !node) continue;
        const double x0 = std::max(0.0, f.from_unix_s - l.t0_unix_s);
        const double x1 = std::min(l.t.back(), f.to_unix_s - l.t0_unix_s);
        if (x1 <= x0) continue;  // outside the samples
        gp << "set object " << ++shaded << " rect from " << x0 << ", graph 0 to " << x1
           << ", graph 1 behind fillcolor rgb " << (cut ? "'#ff9090'" : "'#ffc870'")
           << " fillstyle solid 0.5 noborder\n";
      }
      gp << "set title " << gnuplot_quoted(l.node + " > " + l.peer) << "\nplot "
         << gnuplot_quoted(out_dir + "/links.dat") << " index " << i
         << " using 1:2 with steps lw 2 title 'configured', '' index " << i;
      if (l.background_mbit.empty()) {
        gp << " using 1:3 with lines title 'measured'\n";
      } else {
        // The job and the cross traffic apart (cross_traffic.h): the job is what the shaper
        // passed less the cross traffic's count.
        gp << " using 1:($3 > $4 ? $3 - $4 : 0) with lines title 'job', '' index " << i
           << " using 1:4 with lines dashtype 2 title 'cross traffic'\n";
      }
      for (int k = 1; k <= shaded; ++k) gp << "unset object " << k << "\n";
    }
    gp << "unset multiplot\n";
  }
  r.files.emplace_back(r.script, gp.str());
  return r;
}

RenderedReport render_report(const ReportInput& in, const OutputDir& out) {
  RenderedReport r;
  // Paths in the script are relative ("./x.png"): gnuplot runs inside `out`.
  r.files = build_report(in, ".");
  for (const auto& [name, contents] : r.files.files) out.write(name, contents);
  if (r.files.pngs.empty()) return r;
  std::string script;
  for (const auto& [name, contents] : r.files.files)
    if (name == r.files.script) script = contents;
  try {
    const CommandResult g = run_in_netns("", {"gnuplot"}, script, out.fd());
    r.gnuplot_status = g.status;
    r.gnuplot_output = g.output;
  } catch (const std::system_error& e) {  // not installed: said as a shell would
    r.gnuplot_status = 127;
    r.gnuplot_output = e.what();
  }
  return r;
}

}  // namespace testbed
