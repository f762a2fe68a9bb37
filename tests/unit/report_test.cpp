// testbed report's data shaping: rates from the exporter's counter samples, and a gnuplot
// script that draws what it says it draws.
#include "controller/observe/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace testbed {
namespace {

TEST(Report, MeasuredRateIsTheCounterDifferenceOverTime) {
  const std::string csv =
      "unix_s,link,node,peer,configured_bits_per_s,transmit_bytes\n"
      "100.0,0,a,b,10000000,0\n"
      "100.0,0,b,a,20000000,0\n"
      "101.0,0,a,b,10000000,1250000\n"  // 10 Mbit in a second
      "101.0,0,b,a,20000000,0\n"
      "103.0,0,a,b,5000000,1875000\n"  // 5 Mbit in two seconds: 2.5 Mbit/s
      "103.0,0,b,a,20000,\n";          // cut short: skipped
  const auto s = link_series(csv);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, "a");
  EXPECT_EQ(s[0].peer, "b");
  ASSERT_EQ(s[0].t.size(), 2u);
  EXPECT_DOUBLE_EQ(s[0].t[0], 1.0);
  EXPECT_DOUBLE_EQ(s[0].measured_mbit[0], 10.0);
  EXPECT_DOUBLE_EQ(s[0].measured_mbit[1], 2.5);
  EXPECT_DOUBLE_EQ(s[0].configured_mbit[1], 5.0);
  ASSERT_EQ(s[1].t.size(), 1u);  // b>a: one difference; its cut line is not a sample
  EXPECT_DOUBLE_EQ(s[1].measured_mbit[0], 0.0);
}

TEST(Report, ACounterThatGoesBackStartsAnew) {
  const auto s = link_series("1,0,a,b,8000000,1000\n2,0,a,b,8000000,500\n3,0,a,b,8000000,1500\n");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].t.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].measured_mbit[0], 0.008);
}

TEST(Report, CrossTrafficIsDrawnApartFromTheJob) {
  // The exporter's seventh column: the cross traffic each direction delivered; empty in a
  // direction (or a lab) without it.
  const std::string csv =
      "unix_s,link,node,peer,configured_bits_per_s,transmit_bytes,background_bytes\n"
      "10,0,a,b,10000000,0,0\n10,0,b,a,10000000,0,\n"
      "11,0,a,b,10000000,1250000,750000\n11,0,b,a,10000000,125000,\n";
  const auto s = link_series(csv);
  ASSERT_EQ(s.size(), 2u);
  ASSERT_EQ(s[0].background_mbit.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].background_mbit[0], 6.0);  // 750,000 bytes in a second
  EXPECT_DOUBLE_EQ(s[0].measured_mbit[0], 10.0);
  EXPECT_TRUE(s[1].background_mbit.empty());  // b>a carried none
  ReportInput in;
  in.link_samples_csv = csv;
  const ReportFiles f = build_report(in, "/out");
  std::string script;
  for (const auto& [name, contents] : f.files)
    if (name == f.script) script = contents;
  EXPECT_NE(script.find("title 'cross traffic'"), std::string::npos);
  EXPECT_NE(script.find("title 'job'"), std::string::npos);
  EXPECT_NE(script.find("title 'measured'"), std::string::npos);  // b>a, as before
  // Axes with units, legends outside the data.
  EXPECT_NE(script.find("set ylabel 'Mbit/s'"), std::string::npos);
  EXPECT_NE(script.find("set key outside"), std::string::npos);
}

TEST(Report, ManyIterationsOrLongNamesDoNotRunTogether) {
  ReportInput in;
  std::vector<double> times(500, 0.1);
  in.runs.push_back(
      {{"strategy", "netstorm-pro"}, {"mean_iteration_s", 0.1}, {"iteration_s", times}});
  in.runs.push_back({{"strategy", "drps_wsp"}, {"mean_iteration_s", 0.2}, {"iteration_s", {0.2}}});
  std::string script;
  const ReportFiles f = build_report(in, "/out");
  for (const auto& [name, contents] : f.files)
    if (name == f.script) script = contents;
  EXPECT_EQ(script.find("set xtics 1\n"), std::string::npos);  // not 500 ticks
  EXPECT_NE(script.find("set xtics rotate by 30 right"), std::string::npos);
  EXPECT_NE(script.find("set termoption noenhanced"), std::string::npos);  // drps_wsp as written
}

TEST(Report, ParameterServerRunsGetALossAgainstTimePlot) {
  ReportInput in;
  in.runs.push_back({{"strategy", "bsp"},
                     {"consistency", "bsp"},
                     {"mean_iteration_s", 0.5},
                     {"iteration_s", {0.5, 0.5}},
                     {"target_loss", 0.3},
                     {"loss_curve", {{0.1, 1.0}, {2.0, 0.5}}}});
  in.runs.push_back({{"strategy", "ssp"},
                     {"consistency", "ssp(2)"},
                     {"mean_iteration_s", 0.4},
                     {"iteration_s", {0.4}},
                     {"loss_curve", {{0.1, 1.0}, {1.5, 0.4}}}});
  const ReportFiles f = build_report(in, "/out");
  EXPECT_NE(std::find(f.pngs.begin(), f.pngs.end(), "loss.png"), f.pngs.end());
  std::string data, script;
  for (const auto& [name, contents] : f.files) {
    if (name == "loss.dat") data = contents;
    if (name == f.script) script = contents;
  }
  EXPECT_NE(data.find("# ssp\n0.1 1.0\n1.5 0.4"), std::string::npos) << data;
  EXPECT_NE(script.find("'/out/loss.dat' index 1 using 1:2 with steps lw 2 title 'ssp(2)'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("first 0.3"), std::string::npos) << "the target is drawn";
}

TEST(Report, TheScriptDrawsOnePlotPerRunAndPerDirection) {
  ReportInput in;
  in.runs = {{{"strategy", "ps"}, {"iteration_s", {2.0, 3.0}}, {"mean_iteration_s", 2.5}},
             {{"strategy", "netstorm"}, {"iteration_s", {1.0}}, {"mean_iteration_s", 1.0}}};
  in.link_samples_csv = "1,0,a,b,8000000,0\n2,0,a,b,8000000,1000000\n";
  const ReportFiles r = build_report(in, "/out");
  EXPECT_EQ(r.pngs,
            (std::vector<std::string>{"iteration_time.png", "strategies.png", "links.png"}));
  std::string script;
  for (const auto& [name, contents] : r.files)
    if (name == r.script) script = contents;
  for (const auto& png : r.pngs)
    EXPECT_NE(script.find("set output '/out/" + png + "'"), std::string::npos) << png;
  EXPECT_NE(script.find("index 1 using 1:2 with linespoints title 'netstorm'"), std::string::npos);
  EXPECT_NE(script.find("set title 'a > b'"), std::string::npos);
  EXPECT_TRUE(build_report({}, "/out").pngs.empty());
}

// A results directory is another user's text: what it says reaches gnuplot only as a plain
// label. Measured before: a strategy of "bsp\nsystem(\"id > FILE\")\n#" ran `id` as root.
TEST(Report, ValuesFromTheFilesNeverBecomeGnuplotCommands) {
  const std::string hostile = "bsp\nsystem(\"id > /tmp/tb-owned\")\n#";
  ReportInput in;
  in.runs.push_back({{"strategy", hostile},
                     {"consistency", "x'\nsystem('id')\n'"},
                     {"iteration_s", {1.0}},
                     {"mean_iteration_s", 1.0},
                     {"loss_curve", {{0.1, 1.0}}}});
  in.runs.push_back({{"strategy", "ps"},
                     {"consistency", "bsp';!id;'"},
                     {"iteration_s", {2.0}},
                     {"mean_iteration_s", 2.0},
                     {"loss_curve", {{0.1, 1.0}}}});
  in.link_samples_csv =
      "1,0,a,b,8000000,0\n2,0,a,b,8000000,1000\n"
      "1,0,a'\\,b,8000000,0\n2,0,a'\\,b,8000000,1000\n"
      "1,0,c;!id,d,8000000,0\n2,0,c;!id,d,8000000,1000\n";
  const ReportFiles f = build_report(in, "/out");
  for (const auto& [name, contents] : f.files) {
    EXPECT_EQ(contents.find("system"), std::string::npos) << name;
    EXPECT_EQ(contents.find("!id"), std::string::npos) << name;
    EXPECT_EQ(contents.find("id >"), std::string::npos) << name;
  }
  std::string script;
  for (const auto& [name, contents] : f.files)
    if (name == f.script) script = contents;
  EXPECT_NE(script.find("title 'run1'"), std::string::npos) << script;  // still drawn
  EXPECT_NE(script.find("title 'ps'"), std::string::npos) << script;
  EXPECT_NE(script.find("set title 'a > b'"), std::string::npos);
  EXPECT_EQ(link_series(in.link_samples_csv).size(), 1u);  // the other rows are dropped
  EXPECT_EQ(f.pngs, (std::vector<std::string>{"iteration_time.png", "strategies.png", "loss.png",
                                              "links.png"}));
}

// A committed results file keeps the means but left the per-iteration series out
// (scripts/slim-results.py): the bars are drawn, the iteration plot only of runs that have
// times, and none at all when no run has.
TEST(Report, RunsWithoutIterationTimesGetNoIterationPlot) {
  ReportInput in;
  in.runs = {{{"strategy", "ps"}, {"mean_iteration_s", 2.5}},
             {{"strategy", "netstorm"}, {"mean_iteration_s", 1.0}}};
  EXPECT_EQ(build_report(in, "/out").pngs, (std::vector<std::string>{"strategies.png"}));
  in.runs[1]["iteration_s"] = {1.0, 1.0};
  const ReportFiles r = build_report(in, "/out");
  EXPECT_EQ(r.pngs, (std::vector<std::string>{"iteration_time.png", "strategies.png"}));
  std::string script;
  for (const auto& [name, contents] : r.files)
    if (name == r.script) script = contents;
  EXPECT_EQ(script.find("index 0 using 1:2 with linespoints"), std::string::npos) << script;
  EXPECT_NE(script.find("plot '/out/iterations.dat' index 1 using 1:2 with linespoints"),
            std::string::npos)
      << script;
}

TEST(Report, PlainLabelsAndMalformedRunsAreNamed) {
  for (const char* ok :
       {"bsp", "ssp(2)", "rr-sync/seed2", "drps_wsp", "a=b,c+d:e.f", "drps wsp(16)"})
    EXPECT_TRUE(plot_label(ok)) << ok;
  for (const char* bad : {"", "a'b", "a\nb", "a\"b", "a\\b", "a;b", "a`b", "a$b", "a!b"})
    EXPECT_FALSE(plot_label(bad)) << bad;
  EXPECT_FALSE(plot_label(std::string(65, 'a')));
  EXPECT_EQ(report_run_problem({{"strategy", "ps"}, {"iteration_s", {1.0}}}), "");
  EXPECT_EQ(report_run_problem({{"strategy", 3}}), "strategy is not a string");
  EXPECT_EQ(report_run_problem({{"target_loss", "0.3"}}), "target_loss is not a number");
  EXPECT_EQ(report_run_problem({{"iteration_s", {1.0, "x"}}}),
            "iteration_s is not a list of numbers");
  EXPECT_EQ(report_run_problem({{"loss_curve", {{1.0}}}}),
            "loss_curve is not a list of [seconds, loss] pairs");
  EXPECT_EQ(report_run_problem(nlohmann::json::array()), "the run is not a JSON object");
}

TEST(Report, FaultsAreShadedOnTheirDirectionsAndNodesPlots) {
  const std::string csv =
      "scheduled_s,applied_s,lag_ms,link,from,to,rate_bits_per_s,delay_us,loss,error,state\n"
      "2.0,2.0,0.1,0,a,b,8000000,0,0,\"\",down\n"
      "3.0,3.0,0.1,0,a,b,4000000,0,0,\"\",down\n"  // a change while down: still one cut
      "4.0,4.0,0.1,0,a,b,4000000,0,0,\"\",up\n"
      "5.0,5.0,0.1,,c,,,,,\"\",paused\n"
      "6.0,6.0,0.1,,c,,,,,\"\",running\n"
      "7.0,7.0,0.1,0,b,a,8000000,0,0,\"refused\",down\n"  // not applied
      "8.0,8.0,0.1,,b,,,,,\"\",crashed\n";
  const auto faults = fault_intervals(csv, 100.0);
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].state, "down");
  EXPECT_DOUBLE_EQ(faults[0].from_unix_s, 102.0);
  EXPECT_DOUBLE_EQ(faults[0].to_unix_s, 104.0);
  EXPECT_EQ(faults[1].from, "c");
  EXPECT_DOUBLE_EQ(faults[1].to_unix_s, 106.0);
  EXPECT_EQ(faults[2].state, "crashed");
  EXPECT_TRUE(std::isinf(faults[2].to_unix_s));
  // Samples from 101 to 111 s: a > b is shaded for its cut (1-3 s on its clock) and b's
  // crash (7 s to its end); b > a for the crash only.
  ReportInput in;
  for (int t = 101; t <= 111; ++t) {
    in.link_samples_csv += std::to_string(t) + ",0,a,b,8000000," + std::to_string(t * 1000) + "\n";
    in.link_samples_csv += std::to_string(t) + ",0,b,a,8000000," + std::to_string(t * 1000) + "\n";
  }
  in.faults = faults;
  std::string script;
  const ReportFiles r = build_report(in, "/out");
  for (const auto& [name, contents] : r.files)
    if (name == r.script) script = contents;
  const auto a_b = script.find("set title 'a > b'"), b_a = script.find("set title 'b > a'");
  ASSERT_NE(a_b, std::string::npos);
  ASSERT_NE(b_a, std::string::npos);
  const std::string before_ab = script.substr(0, a_b);
  const std::string before_ba = script.substr(a_b, b_a - a_b);
  EXPECT_NE(before_ab.find("set object 1 rect from 1, graph 0 to 3, graph 1 behind fillcolor "
                           "rgb '#ff9090'"),
            std::string::npos)
      << script;
  EXPECT_NE(before_ab.find("set object 2 rect from 7, graph 0 to 10, graph 1"), std::string::npos)
      << script;
  EXPECT_NE(before_ba.find("unset object 2"), std::string::npos) << "a > b's shading is undone";
  EXPECT_NE(before_ba.find("set object 1 rect from 7, graph 0 to 10, graph 1 behind fillcolor "
                           "rgb '#ffc870'"),
            std::string::npos)
      << script;
  EXPECT_EQ(before_ba.find("'#ff9090'"), std::string::npos) << "b > a was never cut";
}

}  // namespace
}  // namespace testbed
