// The report's plots of compute utilization and of elastic runs' membership (report.h draws
// the rest): what INTELLECT-1's report puts beside its loss, from what each run's summary
// holds (compute_utilization, diloco.membership).
//
// - utilization.png: per worker, its compute over the run's wall time, one bar per run;
//   for an elastic run a second bar, its compute over its own time in (the time its
//   provider was paid for).
// - membership.png: the members of each elastic run's next outer step over wall time,
//   each join, leave and crash marked with its node.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace testbed {

struct ReportFiles;

// The utilization table gnuplot draws: a header line "node <column>..." (gnuplot's
// columnheader titles the bars with it), then a row per
// worker (in first-seen order) with its utilization in each column, "?" where a run had no
// such worker. Columns: each run with per-worker utilization ("<label>"), and after it, for
// an elastic run, "<label>:time_in". Empty when no run has any. Workers whose names are not
// plain labels (plot_label) are left out.
std::string utilization_table(const std::vector<nlohmann::json>& runs,
                              const std::vector<std::string>& labels);

// Appends the plots' data files, PNG names and script lines to `r` and `gp`, for the runs
// that have the figures (none: nothing is added). `labels`: run_labels(runs).
void add_elastic_plots(const std::vector<nlohmann::json>& runs,
                       const std::vector<std::string>& labels, const std::string& out_dir,
                       ReportFiles& r, std::ostream& gp);

}  // namespace testbed
