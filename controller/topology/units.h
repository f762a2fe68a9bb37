// Units as people write them in topology files: rates ("155mbit"), durations ("30ms"),
// percentages ("0.02%") and queue sizes ("1000" packets or "256kb" bytes).
// Parsers return std::nullopt and fill `why` instead of throwing, so the topology parser
// can report every bad value of a file at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace testbed {

// Bits per second. Decimal prefixes, as tc and every link datasheet use them.
struct Rate {
  uint64_t bits_per_s = 0;
  uint64_t bytes_per_s() const { return bits_per_s / 8; }
  bool operator==(const Rate&) const = default;
};

// Microseconds: the resolution netem and the delay line work in.
struct Duration {
  int64_t us = 0;
  bool operator==(const Duration&) const = default;
};

// A fraction in [0, 1], written as a percentage.
struct Fraction {
  double value = 0.0;
  bool operator==(const Fraction&) const = default;
};

// A queue limit, in packets (pfifo) or bytes (bfifo).
struct QueueSize {
  enum class Unit { kPackets, kBytes };
  Unit unit = Unit::kPackets;
  uint64_t amount = 0;
  bool operator==(const QueueSize&) const = default;
};

std::optional<Rate> parse_rate(const std::string& text, std::string& why);
std::optional<Duration> parse_duration(const std::string& text, std::string& why);
std::optional<Fraction> parse_percent(const std::string& text, std::string& why);
std::optional<QueueSize> parse_queue_size(const std::string& text, std::string& why);

// Shortest exact spelling that parses back to the same value ("155mbit", "250us").
std::string format_rate(Rate r);
std::string format_duration(Duration d);
// A time in a schedule, as such times are written: "30s" for whole seconds, else as above.
std::string format_time(Duration d);
std::string format_percent(Fraction f);
std::string format_queue_size(QueueSize q);
// A factor as the user wrote it (0.25 stays 0.25, 1e-3 becomes 0.001): the shortest
// decimal that reads back as the same double, whatever the stream's precision was.
std::string format_factor(double x);

}  // namespace testbed
