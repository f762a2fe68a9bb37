// The one reader of /proc/PID/stat (netns/process_stat.h): fields counted from the command
// name's last ')', whatever the name holds; this process's own, read live.
#include "netns/process_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace testbed {
namespace {

// A line as the kernel writes it: pid (comm) state ppid ... utime(14) stime(15) ...
// starttime(22) ...
std::string stat_line(const std::string& comm, char state) {
  std::string line = "4242 (" + comm + ") " + state;
  for (int field = 4; field <= 52; ++field) {
    const int v = field == 14 ? 700 : field == 15 ? 300 : field == 22 ? 123456 : field;
    line += " " + std::to_string(v);
  }
  return line;
}

TEST(ProcessStat, FieldsCountFromTheNamesLastParenthesis) {
  for (const std::string comm : {"agent", "a b", "x) S 1 (y", "((("}) {
    const auto s = parse_process_stat(stat_line(comm, 'S'));
    ASSERT_TRUE(s.has_value()) << comm;
    EXPECT_EQ(s->state, 'S') << comm;
    EXPECT_EQ(s->user_ticks, 700u) << comm;
    EXPECT_EQ(s->system_ticks, 300u) << comm;
    EXPECT_EQ(s->start_time, 123456u) << comm;
  }
  EXPECT_EQ(parse_process_stat(stat_line("z", 'Z'))->state, 'Z');
}

TEST(ProcessStat, WhatIsNoStatLineIsRefused) {
  EXPECT_FALSE(parse_process_stat("").has_value());
  EXPECT_FALSE(parse_process_stat("4242 (agent").has_value());
  EXPECT_FALSE(parse_process_stat("4242 (agent) S 1 2").has_value());  // cut short
  std::string bad = stat_line("agent", 'S');
  bad.replace(bad.find(" 700 "), 5, " x7 ");
  EXPECT_FALSE(parse_process_stat(bad).has_value());
}

TEST(ProcessStat, ThisProcessIsRunningAndStartedAfterBoot) {
  const auto self = read_process_stat(getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->state, 'R');  // it is reading its own file
  EXPECT_GT(self->start_time, 0u);
  EXPECT_FALSE(read_process_stat(-1).has_value());
}

}  // namespace
}  // namespace testbed
