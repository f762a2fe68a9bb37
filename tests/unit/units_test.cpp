#include "controller/topology/units.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(Units, RatesAsPeopleWriteThem) {
  std::string why;
  EXPECT_EQ(parse_rate("155mbit", why)->bits_per_s, 155000000u);
  EXPECT_EQ(parse_rate("1gbit", why)->bits_per_s, 1000000000u);
  EXPECT_EQ(parse_rate("500kbit", why)->bits_per_s, 500000u);
  EXPECT_EQ(parse_rate("1.5Gbit", why)->bits_per_s, 1500000000u);
  EXPECT_EQ(parse_rate("64bit", why)->bits_per_s, 64u);
}

TEST(Units, RatesRefuseAmbiguityAndNonsense) {
  std::string why;
  EXPECT_FALSE(parse_rate("100mbps", why));
  EXPECT_NE(why.find("ambiguous"), std::string::npos);
  EXPECT_FALSE(parse_rate("-5mbit", why));
  EXPECT_EQ(why, "must not be negative");
  EXPECT_FALSE(parse_rate("0mbit", why));
  EXPECT_FALSE(parse_rate("100", why));
  EXPECT_FALSE(parse_rate("fast", why));
  EXPECT_FALSE(parse_rate("1e3mbit", why));
}

TEST(Units, Durations) {
  std::string why;
  EXPECT_EQ(parse_duration("30ms", why)->us, 30000);
  EXPECT_EQ(parse_duration("250us", why)->us, 250);
  EXPECT_EQ(parse_duration("1s", why)->us, 1000000);
  EXPECT_EQ(parse_duration("0.5ms", why)->us, 500);
  EXPECT_EQ(parse_duration("0", why)->us, 0);
  EXPECT_FALSE(parse_duration("30", why));
  EXPECT_FALSE(parse_duration("3 ms", why));
  EXPECT_FALSE(parse_duration("-1ms", why));
  EXPECT_FALSE(parse_duration("2h", why));
}

TEST(Units, Percentages) {
  std::string why;
  EXPECT_DOUBLE_EQ(parse_percent("0.02%", why)->value, 0.0002);
  EXPECT_DOUBLE_EQ(parse_percent("5%", why)->value, 0.05);
  EXPECT_DOUBLE_EQ(parse_percent("0", why)->value, 0.0);
  EXPECT_FALSE(parse_percent("0.5", why));
  EXPECT_FALSE(parse_percent("101%", why));
}

TEST(Units, QueueSizes) {
  std::string why;
  EXPECT_EQ(*parse_queue_size("1000", why), (QueueSize{QueueSize::Unit::kPackets, 1000}));
  EXPECT_EQ(*parse_queue_size("100pkt", why), (QueueSize{QueueSize::Unit::kPackets, 100}));
  EXPECT_EQ(*parse_queue_size("256kb", why), (QueueSize{QueueSize::Unit::kBytes, 262144}));
  EXPECT_EQ(*parse_queue_size("2mb", why), (QueueSize{QueueSize::Unit::kBytes, 2097152}));
  EXPECT_FALSE(parse_queue_size("0", why));
  EXPECT_FALSE(parse_queue_size("1.5kb", why));
}

TEST(Units, FormattingRoundTrips) {
  std::string why;
  for (const char* r : {"155mbit", "1gbit", "500kbit", "1.5gbit", "64bit"}) {
    EXPECT_EQ(format_rate(*parse_rate(r, why)), r);
  }
  for (const char* d : {"30ms", "250us", "1.5ms", "0ms"}) {
    EXPECT_EQ(format_duration(*parse_duration(d, why)), d);
  }
  EXPECT_EQ(format_percent(*parse_percent("0.02%", why)), "0.02%");
  EXPECT_EQ(format_queue_size(*parse_queue_size("256kb", why)), "256kb");
}

}  // namespace
}  // namespace testbed
