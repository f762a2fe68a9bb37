// The report's compute-utilization and membership plots (report_elastic.h): the table and
// the steps gnuplot draws come from the runs' summaries, and nothing in them that is not a
// plain label reaches the script.
#include "controller/observe/report_elastic.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "controller/observe/report.h"

namespace testbed {
namespace {

nlohmann::json elastic_run() {
  return {
      {"strategy", "diloco"},
      {"wall_s", 30.0},
      {"compute_utilization", {{"mean", 0.6}, {"per_worker", {{"a", 0.9}, {"b", 0.3}}}}},
      {"diloco",
       {{"membership",
         {{"members_over_time", {{{"t_s", 0.0}, {"members", 2}}, {{"t_s", 10.0}, {"members", 1}}}},
          {"changes", {{{"t_s", 10.0}, {"node", "b"}, {"change", "leave"}}}},
          {"compute_utilization_of_member_time",
           {{"mean", 0.8},
            {"per_worker",
             {{"a", {{"member_s", 30.0}, {"utilization", 0.9}}},
              {"b", {{"member_s", 10.0}, {"utilization", 0.9}}}}}}}}}}}};
}

std::string file(const ReportFiles& r, const std::string& name) {
  for (const auto& [n, contents] : r.files)
    if (n == name) return contents;
  return "";
}

TEST(ReportElastic, UtilizationHasAColumnPerRunAndOneForAnElasticRunsTimeIn) {
  const std::vector<nlohmann::json> runs = {
      {{"strategy", "bsp"}, {"compute_utilization", {{"per_worker", {{"a", 0.5}, {"c", 0.25}}}}}},
      elastic_run()};
  EXPECT_EQ(utilization_table(runs, run_labels(runs)),
            "node bsp diloco diloco:time_in\n"
            "a 0.5 0.9 0.9\n"
            "c 0.25 ? ?\n"
            "b ? 0.3 0.9\n");
  // A run without the figure adds no column; with none at all there is no table.
  const std::vector<nlohmann::json> none = {{{"strategy", "netstorm"}}};
  EXPECT_EQ(utilization_table(none, run_labels(none)), "");
}

TEST(ReportElastic, MembersStepOverTimeToTheRunsEndWithEachChangeMarked) {
  ReportInput in;
  in.runs = {elastic_run()};
  const ReportFiles r = build_report(in, "/out");
  for (const char* png : {"utilization.png", "membership.png"})
    EXPECT_NE(std::find(r.pngs.begin(), r.pngs.end(), png), r.pngs.end()) << png;
  EXPECT_EQ(file(r, "membership.dat"), "# diloco\n0 2\n10 1\n30 1\n\n\n");
  EXPECT_NE(file(r, "membership_changes.dat").find("10 1 b:leave\n"), std::string::npos);
  const std::string script = file(r, r.script);
  EXPECT_NE(script.find("'/out/membership.dat' index 0 using 1:2 with steps lw 2 title 'diloco'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("'/out/utilization.dat' using 2:xtic(1) title columnheader(2)"),
            std::string::npos)
      << script;
}

// A results file is anyone's text: a worker or node name that is not a plain label, or a
// figure of the wrong type, is left out; the report still draws the rest.
TEST(ReportElastic, NamesThatAreNotPlainLabelsAndMalformedFiguresAreLeftOut) {
  nlohmann::json run = elastic_run();
  run["compute_utilization"]["per_worker"]["x\nsystem('id')"] = 0.5;
  run["compute_utilization"]["per_worker"]["d"] = "high";
  run["diloco"]["membership"]["changes"].push_back(
      {{"t_s", 12.0}, {"node", "n'\nsystem('id')"}, {"change", "join"}});
  run["diloco"]["membership"]["members_over_time"].push_back({{"t_s", "late"}, {"members", 3}});
  ReportInput in;
  in.runs = {run};
  const ReportFiles r = build_report(in, "/out");
  for (const auto& [name, contents] : r.files) {
    EXPECT_EQ(contents.find("system("), std::string::npos) << name;
    EXPECT_EQ(contents.find("high"), std::string::npos) << name;
  }
  EXPECT_EQ(file(r, "membership.dat"), "# diloco\n0 2\n10 1\n30 1\n\n\n");
  run["diloco"]["membership"]["members_over_time"] = "none";
  in.runs = {run};
  const ReportFiles without = build_report(in, "/out");
  EXPECT_EQ(std::find(without.pngs.begin(), without.pngs.end(), "membership.png"),
            without.pngs.end());
}

}  // namespace
}  // namespace testbed
