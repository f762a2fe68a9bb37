// testbed report LAB|DIR [--out DIR]: PNG plots of a lab's runs without Grafana. LAB is a
// lab that is up (its run directory); DIR is any directory with runs/*.json and
// link_samples.csv. The plots go to --out (default ./testbed-report-NAME), which outlives
// the lab.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/lab/lab_state.h"
#include "controller/observe/report.h"

namespace testbed::cli {

namespace fs = std::filesystem;

int run_report(const Argv& argv) {
  const std::string usage = usage_of("report");
  Args args(argv, {}, {"out"});
  args.at_most(1, usage);
  if (args.positionals().empty()) throw UsageError("usage: " + usage);
  const std::string what = args.positional(0);
  std::string dir = what;
  if (!fs::is_directory(dir)) {
    LabStore store;
    if (!store.has_state(what))
      throw UsageError("'" + what + "' is neither a directory nor a lab that is up");
    dir = store.dir(what);
  }
  ReportInput in;
  std::vector<fs::path> runs;
  if (fs::is_directory(dir + "/runs")) {
    for (const auto& e : fs::directory_iterator(dir + "/runs"))
      if (e.path().extension() == ".json") runs.push_back(e.path());
  }
  std::sort(runs.begin(), runs.end());  // names start with the run's time
  for (const auto& p : runs) {
    std::ifstream f(p);
    auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) {
      std::cerr << "testbed report: skipping " << p.string() << ": not JSON\n";
      continue;
    }
    if (const std::string why = report_run_problem(j); !why.empty()) {
      std::cerr << "testbed report: skipping " << p.string() << ": " << why << "\n";
      continue;
    }
    if (const std::string s = j.value("strategy", ""); !s.empty() && !plot_label(s))
      std::cerr
          << "testbed report: " << p.string()
          << ": strategy is not a plain label (letters, digits, spaces, ._:/()=+,-); shown as a "
             "run number\n";
    in.runs.push_back(std::move(j));
  }
  if (std::ifstream f(dir + "/link_samples.csv"); f) {
    std::ostringstream s;
    s << f.rdbuf();
    in.link_samples_csv = s.str();
  }
  // The lab's faults, shaded on its links' plots: timeline.csv on the lab's clock, whose
  // zero timeline-start puts on the wall clock (the link samples' clock).
  in.faults = lab_fault_intervals(dir);
  if (in.runs.empty() && in.link_samples_csv.empty()) {
    std::cerr << "testbed report: " << dir << " has no runs/*.json and no link_samples.csv\n";
    return kExitInvalid;
  }
  const std::string out_path =
      fs::absolute(
          args.option("out").value_or("testbed-report-" + fs::path(dir).filename().string()))
          .lexically_normal()
          .string();
  // New, or root's and writable by no one else: refused otherwise, before anything is
  // written (private_files.h).
  const OutputDir out = OutputDir::open(out_path);
  const RenderedReport r = render_report(in, out);
  if (r.gnuplot_status != 0) {
    std::cerr << "testbed report: gnuplot failed (" << r.gnuplot_status
              << (r.gnuplot_status == 127 ? ": not installed; apt-get install gnuplot-nox" : "")
              << "):\n"
              << r.gnuplot_output;
    return kExitFailure;
  }
  for (const auto& png : r.files.pngs) std::cout << out.shown(png) << "\n";
  return kExitOk;
}

}  // namespace testbed::cli
