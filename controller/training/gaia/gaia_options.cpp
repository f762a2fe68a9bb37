#include "controller/training/gaia/gaia_options.h"

#include <charconv>

#include "controller/training/gaia/gaia_groups.h"

namespace testbed {
namespace {

// Inside a data center, SSP's bound: 1-100 clocks (Appendix B runs 1 to 4; 100 is no
// barrier on any run we make).
constexpr int kMostLocalStaleness = 100;

// "bsp" or "ssp:S": S, or -1 for BSP; 0 for text that is neither.
int local_staleness_of(const std::string& text) {
  if (text == "bsp") return -1;
  if (text.rfind("ssp:", 0) != 0) return 0;
  int s = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data() + 4, end, s);
  return ec == std::errc() && at == end && s >= 1 && s <= kMostLocalStaleness ? s : 0;
}

std::string check_local(const std::string& text) {
  return local_staleness_of(text) != 0 ? "" : "expected bsp or ssp:S (S clocks, 1-100)";
}

}  // namespace

std::vector<OptionSpec> gaia_options() {
  using T = OptionSpec::Type;
  const GaiaKnobs d;  // the defaults: the paper's v (1%); DS and soft are our choices
  return {
      {.name = "gaia-threshold",
       .type = T::kPercent,
       .fallback = number_text(d.threshold * 100) + "%",
       .min = 0,
       .max = 1,
       .help = "the significance filter's v (the paper's 1%)",
       .field = "threshold",
       .open = true},
      {.name = "gaia-ds",
       .type = T::kInt,
       .fallback = std::to_string(d.ds),
       .min = 0,
       .max = 1000,
       .help = "the mirror clock's data-center staleness DS (our choice, docs/gaia.md)",
       .field = "ds",
       .words = {{"off", -1}},
       .unit = "clocks"},
      {.name = "gaia-soft",
       .type = T::kChoice,
       .fallback = d.soft ? "on" : "off",
       .choices = {"on", "off"},
       .help = "the soft threshold of Sec. 4.3",
       .field = "soft"},
      {.name = "gaia-local",
       .type = T::kText,
       .fallback = "bsp",
       .help = "inside a data center: BSP (the paper's results) or SSP with bound S",
       .field = "local",
       .check = check_local,
       .arg = "bsp|ssp:S"},
      {.name = "gaia-groups",
       .type = T::kText,
       .fallback = d.groups,
       .help = "Sec. 4.5's data-center groups: from the lab's rates, none, or by hand",
       .field = "groups",
       .check = check_gaia_groups,
       .arg = "auto|off|A,B/C,D"},
      {.name = "gaia-partition",
       .type = T::kChoice,
       .fallback = d.partition,
       .choices = {"continue", "block"},
       .help = "once a mirror is presumed cut off: train on without it, or wait (docs/faults.md)",
       .field = "partition"},
  };
}

GaiaKnobs gaia_knobs(const nlohmann::json& policy, bool t_in_passes) {
  GaiaKnobs k;
  k.threshold = option_or(policy, "threshold", k.threshold);
  k.ds = option_or(policy, "ds", k.ds);
  k.soft = option_or<std::string>(policy, "soft", "off") == "on";
  k.local_staleness = local_staleness_of(option_or<std::string>(policy, "local", "bsp"));
  k.t_in_passes = t_in_passes;
  k.groups = option_or(policy, "groups", k.groups);
  k.partition = option_or(policy, "partition", k.partition);
  return k;
}

}  // namespace testbed
