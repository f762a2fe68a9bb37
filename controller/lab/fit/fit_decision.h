// The fit of a run to the machine (`--fit scale|refuse|off`): its demand (run_demand.h)
// held against the budget (emulation_budget.h) at the CPUs the lab may use, and what to do
// when it exceeds it.
//
//  - scale: every link rate, and every model's bytes, by one factor, budget over demand,
//    rounded down to two significant figures. An iteration's time is unchanged (each
//    transfer is as many times smaller as its links are slower), and its packets per
//    second fall by the factor.
//  - refuse: the run does not start; the message gives demand, budget and the factor that
//    would fit.
//  - off: the run as written; a demand over the budget is a note before it starts.
//  - a number F in (0, 1]: rates and model bytes by F whatever the budget (a demand still
//    over it is said). A comparison made on several machines takes the factor the smallest
//    one fits, so that every machine runs the same network (docs/fit.md#one-factor).
//
// The default is off: the demand is an upper bound (every delayed direction busy at once),
// which the default main job uses a third of, and a scaled network is not the profile's
// (TCP's windows in packets, a loss rate per packet, MLfabric's delay bound in versions
// are not scaled with it; docs/fit.md measures what moves). A user who wants the same
// comparison on any machine asks for scale; one who wants the profile's rates or nothing
// asks for refuse.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "controller/lab/fit/emulation_budget.h"
#include "controller/lab/fit/run_demand.h"

namespace testbed {

enum class FitMode { kOff, kScale, kRefuse, kFixed };

std::optional<FitMode> parse_fit_mode(const std::string& text);
std::string fit_mode_name(FitMode m);

// Below this factor the network is not the profile's at any rate worth the name: at 1/100,
// Internet2's slowest direction (34 Mbit/s) becomes 340 kbit/s, where one 1514-byte frame
// takes 36 ms to serialize, more than the link's 30 ms of delay. A fit that needs less is
// refused even when asked to scale.
constexpr double kMinFitFactor = 0.01;

struct Fit {
  FitMode mode = FitMode::kOff;
  double factor = 1.0;  // what rates and model bytes are multiplied by
  RunDemand demand;
  std::optional<EmulationBudget> budget;
  double cpus = 0;                  // the lab's, at the fit
  std::string cpu_scope;            // CpuAllowance::describe
  double budget_packets_per_s = 0;  // the budget at those CPUs; 0 without one
  bool exceeds = false;             // the demand is over the budget
  bool refused = false;             // the run must not start
  std::string why;                  // one sentence: what was found and done
};

// Pure: the decision from the figures. `budget` null: nothing measured, nothing scaled.
// `fixed`: kFixed's factor.
Fit decide_fit(FitMode mode, const RunDemand& demand, const std::optional<EmulationBudget>& budget,
               double cpus, const std::string& cpu_scope, double fixed = 1.0);

// Two significant figures, rounded down (0.3172 -> 0.31), so the factor printed is the one
// used and a fit never exceeds the budget by rounding.
double round_factor_down(double x);

// What `--json`, results and plan.json carry: mode, factor, demand, budget, why.
nlohmann::json fit_to_json(const Fit& f);
// The factor of a fit record (plan.json's "fit"); 1 when there is none.
double fit_factor_of(const nlohmann::json& record);

}  // namespace testbed
