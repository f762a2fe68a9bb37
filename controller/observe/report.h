// `testbed report`: PNG plots of a lab's runs for people without Grafana, drawn by gnuplot
// from what the lab's run directory holds: runs/*.json (one per `train`) and
// link_samples.csv (the exporter's once-a-second sample of every link direction).
// The data shaping is pure and tested; drawing is gnuplot's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "netns/private_files.h"

namespace testbed {

// A fault's interval on the wall clock (Unix seconds), from the lab's timeline.csv: a link
// direction cut (`from` > `to`, state "down"), or a node paused or crashed (`from` the
// node, `to` empty). A crash lasts until the node's next event, if any.
struct FaultInterval {
  std::string from, to;
  std::string state;  // down, paused, crashed
  double from_unix_s = 0;
  double to_unix_s = 0;  // +infinity: it had not ended when the timeline was read
};
// timeline.csv's rows (timeline_log.h) placed on the wall clock by the lab's time zero
// (timeline-start); rows with an error (not applied) are left out.
std::vector<FaultInterval> fault_intervals(const std::string& timeline_csv, double zero_unix_s);
// A lab's faults from its directory (timeline-start and timeline.csv); none when the lab
// has no timeline.
std::vector<FaultInterval> lab_fault_intervals(const std::string& lab_dir);

struct ReportInput {
  std::vector<nlohmann::json> runs;   // run summaries, oldest first
  std::string link_samples_csv;       // may be empty
  std::vector<FaultInterval> faults;  // shaded on the links' plots
};

struct ReportFiles {
  // file name -> contents: gnuplot data files and the script that draws the PNGs
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> pngs;  // what the script draws, in order
  std::string script;             // file name of the script among `files`
};

// Per direction, the configured rate and the rate measured from the kernel's byte counter
// between consecutive samples, in Mbit/s against seconds since the first sample; in a lab
// with cross traffic (a seventh column, background_bytes), the cross traffic's rate too,
// and the job's (the measured rate less it: the shaper's frames against the counters' IP
// bytes, a few percent apart, never below zero).
struct LinkSeries {
  std::string node, peer;
  std::vector<double> t, configured_mbit, measured_mbit;
  std::vector<double> background_mbit;  // empty without cross traffic
  double t0_unix_s = 0;                 // the first sample's time, which t counts from
};
std::vector<LinkSeries> link_series(const std::string& csv);

// Values read from the files (a run's strategy and consistency, a link's node and peer)
// reach gnuplot's script as titles: only plain labels do (letters, digits, spaces and ._:/()=+,-,
// at most 64 characters), so that no value can end a quoted string or a line of the
// script and be run as gnuplot's own commands (system(), shell escapes). A run whose
// strategy is not one is shown as "runN"; a link row whose names are not is dropped.
bool plot_label(const std::string& s);
// Why a run summary cannot be drawn (a field the report reads has the wrong type), naming
// the field; "" when it can. Such a run is skipped and named, never fatal.
std::string report_run_problem(const nlohmann::json& run);

// A string in gnuplot's single quotes (a quote inside doubled).
std::string gnuplot_quoted(const std::string& s);
// Each run's name in the legends and under the bars: its strategy, and when the strategy
// ran more than once (repetitions, seeds), which run it was: "rr-sync/seed2", or
// "rr-sync/run2" without a seed. Names without spaces, as gnuplot reads a label column. A
// strategy that is not a plain label is shown as "runN" (plot_label).
std::vector<std::string> run_labels(const std::vector<nlohmann::json>& runs);

ReportFiles build_report(const ReportInput& in, const std::string& out_dir);

// The report drawn into `out`: its data files written there (private_files.h), then gnuplot
// run in that directory with the script on its standard input, so it reads and writes
// only what is in the directory that was checked. The script is kept beside the plots, for
// people to change and run again. Returns gnuplot's status and output.
struct RenderedReport {
  ReportFiles files;
  int gnuplot_status = 0;  // 127: gnuplot is not installed
  std::string gnuplot_output;
};
RenderedReport render_report(const ReportInput& in, const OutputDir& out);

}  // namespace testbed
