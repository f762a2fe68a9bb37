#include "controller/training/system_options.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "controller/topology/units.h"

namespace testbed {
namespace {

bool parse_whole(const std::string& text, long long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_real(const std::string& text, double& out) {
  // from_chars for doubles is in libstdc++ 11 and later; Debian 12's has it.
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

std::string joined(const std::vector<std::string>& items, const std::string& last) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i + 1 == items.size() ? " " + last + " " : ", ") + items[i];
  return s;
}

// What a number option takes, for its error: "clocks, from 0 to 1000, or none".
std::string expected_number(const OptionSpec& spec) {
  using T = OptionSpec::Type;
  const bool percent = spec.type == T::kPercent;
  const auto text = [&](double v) { return percent ? number_text(v * 100) + "%" : number_text(v); };
  std::string what = percent                ? "a percentage"
                     : !spec.unit.empty()   ? spec.unit
                     : spec.type == T::kInt ? "a whole number"
                                            : "a number";
  std::string range;
  if (spec.open && spec.min == 0 && spec.max == kUnbounded && spec.unit.empty()) {
    what = spec.type == T::kInt ? "a positive whole number" : "a positive number";
  } else {
    range = spec.open              ? "above " + text(spec.min)
            : spec.type == T::kInt ? "from " + text(spec.min)
                                   : "at least " + text(spec.min);
    if (spec.max != kUnbounded)
      range += (spec.open              ? " and below "
                : spec.type == T::kInt ? " to "
                                       : " and at most ") +
               text(spec.max);
  }
  std::string s = "expected " + what + (range.empty() ? "" : ", " + range);
  if (!spec.words.empty()) {
    std::vector<std::string> words;
    for (const auto& w : spec.words) words.push_back(w.first);
    s += ", or " + joined(words, "or");
  }
  return s;
}

// The value's number, or why not.
std::string number_of(const OptionSpec& spec, const std::string& value, double& out) {
  using T = OptionSpec::Type;
  for (const auto& [word, v] : spec.words)
    if (word == value) {
      out = v;
      return "";
    }
  bool parsed = false;
  if (spec.type == T::kInt) {
    long long n = 0;
    parsed = parse_whole(value, n);
    out = static_cast<double>(n);
  } else if (spec.type == T::kPercent) {
    std::string why;
    const auto f = parse_percent(value, why);
    parsed = f.has_value();
    if (parsed) out = f->value;
  } else {
    parsed = parse_real(value, out);
  }
  const bool inside =
      spec.open ? out > spec.min && out < spec.max : out >= spec.min && out <= spec.max;
  return parsed && inside ? "" : expected_number(spec);
}

}  // namespace

std::string check_node_name(const std::string& value) {
  return value.empty() ? "expected a node's name" : "";
}

std::string number_text(double v) {
  // A whole number in full (1000000, not 1e+06); others in the stream's shortest form.
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string check_option(const OptionSpec& spec, const std::string& value) {
  using T = OptionSpec::Type;
  std::string why;
  if (spec.type == T::kChoice) {
    bool known = false;
    for (const auto& c : spec.choices) known = known || c == value;
    if (!known) why = "expected " + joined(spec.choices, "or");
  } else if (spec.type == T::kText) {
    if (value.empty() && spec.check == nullptr) why = "expected a value";
  } else {
    double v = 0;
    why = number_of(spec, value, v);
  }
  if (why.empty() && spec.check != nullptr) why = spec.check(value);
  return why;
}

nlohmann::json option_value(const OptionSpec& spec, const std::string& value) {
  using T = OptionSpec::Type;
  if (value.empty() && spec.fallback.empty()) return nullptr;
  if (const std::string why = check_option(spec, value); !why.empty())
    throw std::invalid_argument("--" + spec.name + " '" + value + "': " + why);
  if (spec.type == T::kChoice || spec.type == T::kText) return value;
  if (spec.type == T::kInt) {
    long long n = 0;  // parsed as a whole number: a seed keeps all its 64 bits
    if (parse_whole(value, n)) return n;
  }
  double v = 0;
  number_of(spec, value, v);
  if (spec.type == T::kInt) return static_cast<long long>(v);
  return v;
}

std::string option_usage(const OptionSpec& spec) {
  using T = OptionSpec::Type;
  std::string arg = spec.arg;
  if (arg.empty()) {
    if (spec.type == T::kChoice) {
      for (const auto& c : spec.choices) arg += (arg.empty() ? "" : "|") + c;
    } else {
      arg = spec.type == T::kInt ? "N" : spec.type == T::kPercent ? "P%" : "X";
      for (const auto& w : spec.words) arg += "|" + w.first;
    }
  }
  return "[--" + spec.name + " " + arg + "]";
}

nlohmann::json option_values(const std::vector<OptionSpec>& specs,
                             const std::map<std::string, std::string>& given) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& spec : specs) {
    const auto it = given.find(spec.name);
    try {
      values[spec.key()] = option_value(spec, it == given.end() ? spec.fallback : it->second);
    } catch (const std::invalid_argument& e) {
      if (it != given.end()) throw;
      // The table's own default is refused: a mistake in the registry, not the user's.
      throw std::logic_error(std::string("the default of ") + e.what());
    }
  }
  return values;
}

}  // namespace testbed
