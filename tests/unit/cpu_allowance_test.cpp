// The CPUs a lab may use (netns/cpu_allowance.h), what health judges against them
// (controller/health/cpu_load.h), how many delay-line processes they get
// (controller/lab/delay_line_groups.h), and how early a delay line wakes (wake_margin.h).
#include <gtest/gtest.h>

#include "controller/health/cpu_load.h"
#include "controller/lab/delay_line_groups.h"
#include "netns/cpu_allowance.h"
#include "netns/wake_margin.h"

namespace testbed {
namespace {

TEST(CpuAllowance, QuotasOfBothCgroupVersions) {
  EXPECT_FALSE(parse_cpu_max("max 100000\n"));
  EXPECT_DOUBLE_EQ(*parse_cpu_max("50000 100000\n"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_cpu_max("150000 100000"), 1.5);
  EXPECT_FALSE(parse_cpu_max(""));
  EXPECT_FALSE(parse_cpu_max("garbage 100000"));
  EXPECT_FALSE(v1_quota_cpus("-1\n", "100000\n"));
  EXPECT_DOUBLE_EQ(*v1_quota_cpus("100000\n", "100000\n"), 1.0);
  EXPECT_FALSE(v1_quota_cpus("", "100000"));
}

TEST(CpuAllowance, GroupOfAControllerInProcCgroup) {
  const std::string v1 = "9:name=systemd:/\n3:cpuset:/ci\n1:cpu,cpuacct:/ci/job:7\n0::/\n";
  EXPECT_EQ(*cgroup_of(v1, "cpu"), "/ci/job:7");  // a path may hold ':'
  EXPECT_EQ(*cgroup_of(v1, "cpuacct"), "/ci/job:7");
  EXPECT_EQ(*cgroup_of(v1, "cpuset"), "/ci");
  EXPECT_FALSE(cgroup_of(v1, "memory"));
  EXPECT_EQ(*cgroup_of(v1, ""), "/");
  EXPECT_EQ(*cgroup_of("0::/user.slice/run.scope\n", ""), "/user.slice/run.scope");
  EXPECT_FALSE(cgroup_of("1:cpu:/x\n", ""));
}

TEST(CpuAllowance, EffectiveIsTheFewerOfCpusAndQuota) {
  CpuAllowance a;
  a.cpus = {0, 1, 2, 5};
  EXPECT_DOUBLE_EQ(a.effective(), 4);
  EXPECT_EQ(a.describe(), "4 CPUs (0-2,5)");
  a.quota_cpus = 1.5;
  a.quota_group = "/ci";
  EXPECT_DOUBLE_EQ(a.effective(), 1.5);
  EXPECT_EQ(a.describe(), "4 CPUs (0-2,5), quota 1.5 CPU (/ci)");
  a.quota_cpus = 8;
  EXPECT_DOUBLE_EQ(a.effective(), 4);
  EXPECT_EQ(cpu_ranges({3}), "3");
}

TEST(CpuAllowance, ThisProcessHasAtLeastOneCpu) {
  const CpuAllowance a = read_cpu_allowance();
  ASSERT_FALSE(a.cpus.empty());
  EXPECT_GT(a.effective(), 0);
}

TEST(CpuAllowance, DelayLineProcessesFollowTheLabsCpus) {
  CpuAllowance a;
  a.cpus = {0};
  EXPECT_EQ(delay_line_processes(a), 1u);
  a.cpus = {0, 1};
  EXPECT_EQ(delay_line_processes(a), 2u);
  a.quota_cpus = 0.3;  // a fraction of a CPU still gets one
  EXPECT_EQ(delay_line_processes(a), 1u);
  a.quota_cpus = 1.2;  // a partial CPU rounds up
  EXPECT_EQ(delay_line_processes(a), 2u);
  a.quota_cpus.reset();
  a.cpus.clear();
  for (int c = 0; c < 64; ++c) a.cpus.push_back(c);
  EXPECT_EQ(delay_line_processes(a), kMaxDelayLineProcesses);
}

TEST(CpuLoad, OnlyTheLabsCpusAreCounted) {
  const std::string stat =
      "cpu  140 0 0 60 0 0 0 0 0 0\n"
      "cpu0 100 0 0 0 0 0 0 0 0 0\n"
      "cpu1 40 0 0 60 0 0 0 0 0 0\n"
      "intr 5\n";
  const auto zero = parse_proc_stat(stat, {0});
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->busy, 100u);
  EXPECT_EQ(zero->total, 100u);
  const auto both = parse_proc_stat(stat, {0, 1});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->busy, 140u);
  EXPECT_EQ(both->total, 200u);
  EXPECT_FALSE(parse_proc_stat(stat, {0, 7}));  // a CPU the file does not have
  // The machine's aggregate says 70% busy; the lab, confined to CPU 0, was saturated.
  CpuSaturation lab, machine;
  lab.add({0, 0}, *zero);
  machine.add({0, 0}, *parse_proc_stat(stat));
  EXPECT_DOUBLE_EQ(lab.saturated_share(), 1.0);
  EXPECT_DOUBLE_EQ(machine.saturated_share(), 0.0);
}

TEST(CpuLoad, AQuotaScalesWhatCountsAsFull) {
  CpuSaturation half(0.5);  // a quota of one CPU over two
  half.add({0, 0}, {48, 100});
  half.add({48, 100}, {68, 200});
  EXPECT_EQ(half.intervals(), 2u);
  EXPECT_DOUBLE_EQ(half.saturated_share(), 0.5);  // 48% of two CPUs is 96% of one
  EXPECT_DOUBLE_EQ(half.busy_quantile(1.0), 0.96);
}

TEST(WakeMargin, WakesEarlyEnoughForItsTimerButBatchesHalfAWindow) {
  WakeMargin m;
  // A 600 us window: 200 us early, so the batch runs 400 us past the first due packet.
  EXPECT_EQ(m.before(10'000, 600), 9'800);
  // A 100 us window (a 5 ms link): half of it.
  EXPECT_EQ(m.before(10'000, 100), 9'950);
  EXPECT_EQ(m.before(10'000, 0), 10'000);  // exact releases
  // A host whose timer wakes 400 us late: the margin grows to twice that, within half the
  // window; a single stall of seconds counts as at most 1 ms.
  for (int i = 0; i < 200; ++i) m.woke(0, 400);
  EXPECT_NEAR(static_cast<double>(10'000 - m.before(10'000, 2'000)), 800, 40);
  EXPECT_EQ(m.before(10'000, 600), 9'700);
  WakeMargin s;
  s.woke(0, 5'000'000);
  EXPECT_LE(10'000 - s.before(10'000, 100'000), 2 * (50 + 1000 / 16) + 1);
}

}  // namespace
}  // namespace testbed
