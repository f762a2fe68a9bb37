#include "controller/topology/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace testbed {
namespace {

// Splits "155mbit" into 155.0 and "mbit". Refuses signs, exponents and empty numbers so
// that "-5mbit" and "1e3mbit" get a clear message instead of a surprising value.
bool split_number(const std::string& text, double& number, std::string& unit, std::string& why) {
  size_t i = 0;
  bool digits = false, dot = false;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !dot))) {
    digits = digits || text[i] != '.';
    dot = dot || text[i] == '.';
    ++i;
  }
  if (!text.empty() && text[0] == '-') {
    why = "must not be negative";
    return false;
  }
  if (!digits) {
    why = "'" + text + "' is not a number followed by a unit";
    return false;
  }
  number = std::stod(text.substr(0, i));
  unit.clear();
  for (size_t j = i; j < text.size(); ++j) {
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[j])));
  }
  return true;
}

std::optional<Rate> to_rate(double number, double factor, const std::string& text,
                            std::string& why) {
  const double value = std::round(number * factor);
  if (value > static_cast<double>(std::numeric_limits<int64_t>::max())) {
    why = "'" + text + "' is too large";
    return std::nullopt;
  }
  return Rate{static_cast<uint64_t>(value)};
}

std::string trim_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::optional<Rate> parse_rate(const std::string& text, std::string& why) {
  double number = 0;
  std::string unit;
  if (!split_number(text, number, unit, why)) return std::nullopt;
  // "bps" is deliberately refused: tc reads "mbps" as megaBYTES per second while most
  // people mean megabits, and a silent factor of 8 would ruin an experiment.
  if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "bps") == 0) {
    why = "unit '" + unit + "' is ambiguous (tc reads it as bytes per second); write '" +
          unit.substr(0, unit.size() - 3) + "bit' for bits per second";
    return std::nullopt;
  }
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"bit", 1.0}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}, {"tbit", 1e12}};
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) {
      auto r = to_rate(number, factor, text, why);
      if (r && r->bits_per_s == 0) {
        why = "a rate must be greater than zero";
        return std::nullopt;
      }
      return r;
    }
  }
  why = "'" + text + "' is not a rate; write e.g. 500kbit, 155mbit or 1gbit";
  return std::nullopt;
}

std::optional<Duration> parse_duration(const std::string& text, std::string& why) {
  double number = 0;
  std::string unit;
  if (!split_number(text, number, unit, why)) return std::nullopt;
  double factor = 0;
  if (unit == "us") {
    factor = 1;
  } else if (unit == "ms") {
    factor = 1e3;
  } else if (unit == "s") {
    factor = 1e6;
  } else if (unit.empty() && number == 0) {
    factor = 1;  // a bare 0 needs no unit
  } else {
    why = "'" + text + "' is not a duration; write e.g. 250us, 30ms or 1s";
    return std::nullopt;
  }
  const double us = std::round(number * factor);
  if (us > 3600e6) {
    why = "'" + text + "' is longer than an hour";
    return std::nullopt;
  }
  return Duration{static_cast<int64_t>(us)};
}

std::optional<Fraction> parse_percent(const std::string& text, std::string& why) {
  double number = 0;
  std::string unit;
  if (!split_number(text, number, unit, why)) return std::nullopt;
  if (unit.empty() && number == 0) return Fraction{0.0};  // a bare 0 needs no unit
  if (unit != "%") {
    why = "'" + text + "' is not a percentage; write e.g. 0.02%";
    return std::nullopt;
  }
  if (number > 100) {
    why = "'" + text + "' is more than 100%";
    return std::nullopt;
  }
  return Fraction{number / 100.0};
}

std::optional<QueueSize> parse_queue_size(const std::string& text, std::string& why) {
  double number = 0;
  std::string unit;
  if (!split_number(text, number, unit, why)) return std::nullopt;
  if (number != std::floor(number) || number == 0) {
    why = "'" + text + "' must be a whole number greater than zero";
    return std::nullopt;
  }
  // Sizes follow tc: kb and mb are binary (1024) kilo- and megabytes.
  static const std::vector<std::pair<std::string, QueueSize>> kUnits = {
      {"", {QueueSize::Unit::kPackets, 1}},
      {"pkt", {QueueSize::Unit::kPackets, 1}},
      {"b", {QueueSize::Unit::kBytes, 1}},
      {"kb", {QueueSize::Unit::kBytes, 1024}},
      {"mb", {QueueSize::Unit::kBytes, 1024 * 1024}}};
  for (const auto& [name, q] : kUnits) {
    if (unit == name) return QueueSize{q.unit, static_cast<uint64_t>(number) * q.amount};
  }
  why = "'" + text + "' is not a queue size; write packets (1000) or bytes (256kb, 2mb)";
  return std::nullopt;
}

std::string format_rate(Rate r) {
  static const std::vector<std::pair<const char*, uint64_t>> kUnits = {
      {"tbit", 1000000000000ULL}, {"gbit", 1000000000ULL}, {"mbit", 1000000ULL}, {"kbit", 1000ULL}};
  for (const auto& [name, factor] : kUnits) {
    if (r.bits_per_s >= factor && r.bits_per_s % (factor / 1000) == 0) {
      return trim_number(static_cast<double>(r.bits_per_s) / static_cast<double>(factor)) + name;
    }
  }
  return std::to_string(r.bits_per_s) + "bit";
}

std::string format_duration(Duration d) {
  if (d.us == 0) return "0ms";
  if (d.us % 1000 == 0) return std::to_string(d.us / 1000) + "ms";
  if (d.us >= 1000) return trim_number(static_cast<double>(d.us) / 1000.0) + "ms";
  return std::to_string(d.us) + "us";
}

std::string format_time(Duration d) {
  return d.us != 0 && d.us % 1000000 == 0 ? std::to_string(d.us / 1000000) + "s"
                                          : format_duration(d);
}

std::string format_percent(Fraction f) {
  return trim_number(f.value * 100.0) + "%";
}

std::string format_factor(double x) {
  char buf[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string format_queue_size(QueueSize q) {
  if (q.unit == QueueSize::Unit::kPackets) return std::to_string(q.amount) + "pkt";
  if (q.amount % 1024 == 0) return std::to_string(q.amount / 1024) + "kb";
  return std::to_string(q.amount) + "b";
}

}  // namespace testbed
