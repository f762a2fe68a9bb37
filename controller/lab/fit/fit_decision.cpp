#include "controller/lab/fit/fit_decision.h"

#include <cmath>
#include <sstream>

#include "controller/topology/units.h"

namespace testbed {
namespace {

std::string thousands(double x) {
  std::ostringstream s;
  s.precision(3);
  if (x >= 1e6) {
    s << x / 1e6 << "M";
  } else if (x >= 1e3) {
    s << x / 1e3 << "k";
  } else {
    s << x;
  }
  return s.str();
}

}  // namespace

std::optional<FitMode> parse_fit_mode(const std::string& text) {
  if (text == "off") return FitMode::kOff;
  if (text == "scale") return FitMode::kScale;
  if (text == "refuse") return FitMode::kRefuse;
  return std::nullopt;
}

std::string fit_mode_name(FitMode m) {
  switch (m) {
    case FitMode::kScale:
      return "scale";
    case FitMode::kRefuse:
      return "refuse";
    case FitMode::kFixed:
      return "fixed";
    case FitMode::kOff:
      break;
  }
  return "off";
}

double round_factor_down(double x) {
  if (!(x > 0)) return 0;
  const int exponent = static_cast<int>(std::floor(std::log10(x))) - 1;  // 2 figures
  // The small epsilon keeps 0.3 from reading as 0.29999 and falling a step; the result is
  // read back from its decimal spelling, so that 0.051 is 0.051 and not 0.051000000000000004.
  const auto figures = static_cast<long long>(std::floor(x / std::pow(10.0, exponent) + 1e-9));
  return std::stod(std::to_string(figures) + "e" + std::to_string(exponent));
}

Fit decide_fit(FitMode mode, const RunDemand& demand, const std::optional<EmulationBudget>& budget,
               double cpus, const std::string& cpu_scope, double fixed) {
  Fit f;
  f.mode = mode;
  f.demand = demand;
  f.budget = budget;
  f.cpus = cpus;
  f.cpu_scope = cpu_scope;
  const std::string asked = "the links' peak " + thousands(demand.packets_per_s) + " packets/s";
  if (mode == FitMode::kFixed) {
    f.factor = fixed;
    RunDemand scaled = demand;
    scaled.packets_per_s *= fixed;
    f.budget_packets_per_s = budget ? budget->packets_per_s(cpus) : 0;
    f.exceeds = budget && scaled.packets_per_s > f.budget_packets_per_s;
    f.why =
        "every rate and model byte scaled by " + format_factor(fixed) + " as asked (" +
        thousands(scaled.packets_per_s) + " packets/s at the peak" +
        (!budget ? "; no budget measured on this machine"
                 : std::string(f.exceeds ? ", over" : ", within") + " this machine's budget of " +
                       thousands(f.budget_packets_per_s) + " on " + cpu_scope) +
        ")";
    return f;
  }
  if (!budget) {
    f.why = asked + "; no budget measured on this machine (testbed doctor --budget), so " +
            "nothing is fitted";
    return f;
  }
  f.budget_packets_per_s = budget->packets_per_s(cpus);
  const std::string against = asked + " against this machine's budget of " +
                              thousands(f.budget_packets_per_s) + " on " + cpu_scope;
  f.exceeds = demand.packets_per_s > f.budget_packets_per_s;
  if (!f.exceeds) {
    f.why = against + ": within it";
    return f;
  }
  const double fits = round_factor_down(f.budget_packets_per_s / demand.packets_per_s);
  const std::string factor_text = format_factor(fits);
  if (mode == FitMode::kOff) {
    f.why = against + ": over it if every link were busy at once; run as written, its health " +
            "says whether it held (--fit scale would scale by " + factor_text + ")";
  } else if (fits < kMinFitFactor) {
    f.refused = true;
    f.why = against + ": it would take a factor of " + factor_text + ", below the least (" +
            format_factor(kMinFitFactor) + ") at which the links stay the profile's";
  } else if (mode == FitMode::kRefuse) {
    f.refused = true;
    f.why = against + ": over it (--fit scale would scale rates and model bytes by " + factor_text +
            ")";
  } else {
    f.factor = fits;
    f.why = against + ": every rate and model byte scaled by " + factor_text;
  }
  return f;
}

nlohmann::json fit_to_json(const Fit& f) {
  return {{"mode", fit_mode_name(f.mode)},
          {"factor", f.factor},
          {"demand", demand_to_json(f.demand)},
          {"budget", f.budget ? budget_to_json(*f.budget) : nlohmann::json(nullptr)},
          {"budget_packets_per_s", f.budget_packets_per_s},
          {"cpus", f.cpus},
          {"cpu_scope", f.cpu_scope},
          {"exceeds", f.exceeds},
          {"refused", f.refused},
          {"why", f.why}};
}

double fit_factor_of(const nlohmann::json& record) {
  if (!record.is_object() || !record.contains("factor") || !record["factor"].is_number())
    return 1.0;
  return record["factor"].get<double>();
}

}  // namespace testbed
