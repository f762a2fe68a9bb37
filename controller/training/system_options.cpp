#include "controller/training/system_options.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace testbed {
namespace {

bool parse_number(const std::string& text, bool whole, double& out) {
  if (whole) {
    long long n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) return false;
    out = static_cast<double>(n);
    return true;
  }
  // from_chars for doubles is in libstdc++ 11 and later; Debian 12's has it.
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

}  // namespace

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string check_option(const OptionSpec& spec, const std::string& value) {
  if (spec.type == OptionSpec::Type::kChoice) {
    for (const auto& c : spec.choices)
      if (c == value) return "";
    std::string known;
    for (const auto& c : spec.choices) known += (known.empty() ? "" : ", ") + c;
    return "expected one of " + known;
  }
  const bool whole = spec.type == OptionSpec::Type::kInt;
  double v = 0;
  if (!parse_number(value, whole, v))
    return whole ? "expected a whole number" : "expected a number";
  if (v < spec.min || v > spec.max)
    return "expected " + number_text(spec.min) + " to " + number_text(spec.max);
  return "";
}

std::string option_usage(const OptionSpec& spec) {
  std::string arg;
  if (spec.type == OptionSpec::Type::kChoice) {
    for (const auto& c : spec.choices) arg += (arg.empty() ? "" : "|") + c;
  } else {
    arg = spec.type == OptionSpec::Type::kInt ? "N" : "X";
  }
  return "[--" + spec.name + " " + arg + "]";
}

nlohmann::json option_values(const std::vector<OptionSpec>& specs,
                             const std::map<std::string, std::string>& given) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& spec : specs) {
    const auto it = given.find(spec.name);
    const std::string& text = it == given.end() ? spec.fallback : it->second;
    double v = 0;
    if (spec.type == OptionSpec::Type::kChoice) {
      values[spec.key()] = text;
    } else if (parse_number(text, spec.type == OptionSpec::Type::kInt, v)) {
      if (spec.type == OptionSpec::Type::kInt)
        values[spec.key()] = static_cast<long long>(v);
      else
        values[spec.key()] = v;
    } else {
      // The table's own default is not a number: a mistake in the registry, not the user's.
      throw std::logic_error("option --" + spec.name + ": default '" + text + "' is no number");
    }
  }
  return values;
}

}  // namespace testbed
