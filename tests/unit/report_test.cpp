// testbed report's data shaping: rates from the exporter's counter samples, and a gnuplot
// script that draws what it says it draws.
#include "controller/observe/report.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace testbed
