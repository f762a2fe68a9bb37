// What a WSP run reports: the master's counters, its waits summarised beside their log,
// and the readings, with delta a number or "none".
#include "controller/training/drps/wsp_summary.h"

#include <gtest/gtest.h>

#include "agent/protocols/drps/wsp_selector.h"

namespace testbed {
namespace {

TEST(WspSummary, SummarisesTheWaitsAndSaysWhoDecided) {
  WspMasterSection master{.choices = 10,
                          .waited = 4,
                          .bound_forced = 1,
                          .held = 3,
                          .expected_wait_s = 0.8,
                          .realized_wait_s = 2.0};
  master.waits = {{1, 2, 0.1, 0.2, false},
                  {2, 3, 0.2, 0.4, false},
                  {1, 4, 0.2, 0.6, true},
                  {3, 4, 0.3, 0.8, false}};
  const auto s = wsp_summary(master, "m1", 3);
  EXPECT_EQ(s["master"], "m1");
  EXPECT_EQ(s["choices"], 10);
  const auto& w = s["wait_summary"];
  EXPECT_DOUBLE_EQ(w["forced_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(w["estimated_mean_s"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(w["realized_mean_s"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(w["realized_median_s"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(w["realized_median_s_forced"].get<double>(), 0.6);
  EXPECT_EQ(w["logged"], 4);
  EXPECT_EQ(s["readings"]["delta"], 3);
  EXPECT_NE(s["readings"]["decided_by"].get<std::string>().find("one master"), std::string::npos);
  EXPECT_EQ(wsp_summary(master, "m1", kWspNoBound)["readings"]["delta"], "none");
}

TEST(WspSummary, NoWaitsNoDivisionByZero) {
  const auto s = wsp_summary(WspMasterSection{.choices = 3}, "m", 1);
  EXPECT_DOUBLE_EQ(s["wait_summary"]["forced_share"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(s["wait_summary"]["realized_median_s"].get<double>(), 0);
}

}  // namespace
}  // namespace testbed
