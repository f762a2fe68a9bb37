// A system's own options, declared once in its registry entry (controller/training/
// system_options.h): checked, listed, parsed from the command line and the profile, and
// turned into the typed policy its agents read, with no code of the system's own in the
// option parser.
#include "controller/training/system_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "controller/options/workload_settings.h"
#include "controller/training/strategy_registry.h"

namespace testbed {
namespace {

const OptionSpec kSteps{.name = "steps",
                        .type = OptionSpec::Type::kInt,
                        .fallback = "10",
                        .min = 1,
                        .max = 100,
                        .help = "steps",
                        .field = "inner_steps"};
const OptionSpec kRate{
    .name = "rate", .type = OptionSpec::Type::kReal, .fallback = "0.5", .min = 0, .max = 1};
const OptionSpec kKind{
    .name = "kind", .type = OptionSpec::Type::kChoice, .fallback = "a", .choices = {"a", "b"}};

TEST(SystemOptions, ValuesAreCheckedByTypeAndRange) {
  EXPECT_EQ(check_option(kSteps, "5"), "");
  EXPECT_EQ(check_option(kSteps, "0"), "expected a whole number, from 1 to 100");
  EXPECT_EQ(check_option(kSteps, "2.5"), "expected a whole number, from 1 to 100");
  EXPECT_EQ(check_option(kSteps, "5x"), "expected a whole number, from 1 to 100");
  EXPECT_EQ(check_option(kRate, "0.25"), "");
  EXPECT_EQ(check_option(kRate, "1.5"), "expected a number, at least 0 and at most 1");
  EXPECT_EQ(check_option(kRate, "nan"), "expected a number, at least 0 and at most 1");
  EXPECT_EQ(check_option(kKind, "b"), "");
  EXPECT_EQ(check_option(kKind, "c"), "expected a or b");
}

// The kinds the systems' tables need beyond a plain number: a word standing for a number
// (Gaia's `--gaia-ds off`), a percentage, text a function checks, an unset default, and
// an open range (above 0, not from it).
const OptionSpec kBound{.name = "bound",
                        .type = OptionSpec::Type::kInt,
                        .fallback = "2",
                        .min = 0,
                        .max = 1000,
                        .words = {{"off", -1}},
                        .unit = "clocks"};
const OptionSpec kShare{.name = "share",
                        .type = OptionSpec::Type::kPercent,
                        .fallback = "1%",
                        .min = 0,
                        .max = 1,
                        .open = true};
std::string only_ab(const std::string& v) {
  return v == "a,b" ? "" : "expected a,b";
}
const OptionSpec kGroups{.name = "groups", .type = OptionSpec::Type::kText, .check = only_ab};
const OptionSpec kNode{.name = "node", .type = OptionSpec::Type::kText};
const OptionSpec kScale{
    .name = "scale", .type = OptionSpec::Type::kReal, .max = kUnbounded, .open = true};

TEST(SystemOptions, WordsPercentagesTextAndOpenRanges) {
  EXPECT_EQ(check_option(kBound, "off"), "");
  EXPECT_EQ(option_value(kBound, "off"), -1);
  EXPECT_EQ(check_option(kBound, "on"), "expected clocks, from 0 to 1000, or off");
  EXPECT_EQ(option_usage(kBound), "[--bound N|off]");
  EXPECT_DOUBLE_EQ(option_value(kShare, "2.5%").get<double>(), 0.025);
  EXPECT_EQ(check_option(kShare, "0%"), "expected a percentage, above 0% and below 100%");
  EXPECT_EQ(check_option(kShare, "100%"), "expected a percentage, above 0% and below 100%");
  EXPECT_EQ(option_usage(kShare), "[--share P%]");
  EXPECT_EQ(check_option(kGroups, "a,b"), "");
  EXPECT_EQ(check_option(kGroups, "c"), "expected a,b");
  EXPECT_EQ(check_option(kNode, ""), "expected a value");
  EXPECT_EQ(check_option(kScale, "0"), "expected a positive number");
  EXPECT_EQ(check_option(kScale, "1e9"), "");
  // A seed keeps its 64 bits: parsed as a whole number, not through a double.
  const OptionSpec seed{.name = "seed", .type = OptionSpec::Type::kInt, .min = 0, .max = 9.2e18};
  EXPECT_EQ(option_value(seed, "9007199254740993").get<long long>(), 9007199254740993LL);
  // Unset (an empty default) is null, and a run's reader says what null means.
  const nlohmann::json v = option_values({kNode, kBound}, {});
  EXPECT_TRUE(v["node"].is_null());
  EXPECT_EQ(option_or<std::string>(v, "node", "none"), "none");
  EXPECT_EQ(option_or(v, "bound", 7), 2);
  EXPECT_EQ(option_or(nlohmann::json(), "bound", 7), 7);  // a run made by hand: no values
}

TEST(SystemOptions, AnOptionSeveralTakeNamesThemAllAndRulesCrossOptions) {
  EXPECT_EQ(option_takers("aggregators"), "mlfabric-a and mlfabric-s");
  EXPECT_EQ(option_takers("store"), "bsp, ssp, async and drps");
  EXPECT_EQ(option_takers("colour"), "");
  const StrategyTraits& a = strategy_traits("mlfabric-a");
  ASSERT_NE(a.options_rule, nullptr);
  const auto rule = [&](const std::map<std::string, std::string>& given) {
    return a.options_rule(option_values(a.options, given), {});
  };
  EXPECT_EQ(rule({}), "");
  EXPECT_EQ(rule({{"replica", "w1"}, {"div-max", "4"}}), "");
  EXPECT_NE(rule({{"div-max", "4"}}).find("--replica NODE"), std::string::npos);
  EXPECT_NE(rule({{"standby", "w1"}}).find("go together"), std::string::npos);
  EXPECT_NE(
      rule({{"standby", "w1"}, {"checkpoint-every", "5"}, {"replica", "w2"}}).find("not both"),
      std::string::npos);
  // The disk store's knobs are refused with a store in memory, when a user gave them.
  const StrategyTraits& bsp = strategy_traits("bsp");
  const nlohmann::json memory = option_values(bsp.options, {{"index", "on"}});
  EXPECT_EQ(bsp.options_rule(memory, {"index"}), "--index is for --store disk");
  EXPECT_EQ(bsp.options_rule(memory, {}), "");  // a profile's key serves other runs
  const nlohmann::json disk = option_values(bsp.options, {{"store", "disk"}, {"index", "on"}});
  EXPECT_EQ(bsp.options_rule(disk, {"index"}), "");
}

TEST(SystemOptions, UsageAndTypedValuesWithDefaultsFilled) {
  EXPECT_EQ(option_usage(kSteps), "[--steps N]");
  EXPECT_EQ(option_usage(kRate), "[--rate X]");
  EXPECT_EQ(option_usage(kKind), "[--kind a|b]");
  const nlohmann::json v = option_values({kSteps, kRate, kKind}, {{"rate", "0.25"}});
  EXPECT_EQ(v, nlohmann::json({{"inner_steps", 10}, {"rate", 0.25}, {"kind", "a"}}));
  EXPECT_TRUE(v["inner_steps"].is_number_integer());
}

TEST(SystemOptions, EveryTableIsSoundAndANameMeansOneThing) {
  std::set<std::string> seen;
  // An option several systems take (DiLoCo's, which Streaming DiLoCo takes too) is the
  // same option in every table, so a profile key means one thing whichever system runs.
  std::map<std::string, const OptionSpec*> first;
  for (const auto& t : strategy_registry()) {
    for (const auto& o : t.options) {
      seen.insert(o.name);
      if (!o.fallback.empty()) {  // "" : unset, the run's reader says what that means
        EXPECT_EQ(check_option(o, o.fallback), "") << t.name << ": --" << o.name;
      }
      EXPECT_FALSE(o.help.empty()) << o.name;
      EXPECT_EQ(find_option(t, o.name), &o);
      ASSERT_NE(option_owner(o.name), nullptr);
      const auto [it, fresh] = first.emplace(o.name, &o);
      if (fresh) continue;
      const OptionSpec& a = *it->second;
      EXPECT_TRUE(a.type == o.type && a.fallback == o.fallback && a.min == o.min &&
                  a.max == o.max && a.choices == o.choices && a.key() == o.key() &&
                  a.words == o.words && a.check == o.check && a.open == o.open)
          << "--" << o.name << " differs in " << t.name;
    }
  }
  // The built-in keys are the option parser's own: a table may not take one.
  for (const auto& key : workload_keys()) {
    if (option_owner(key) == nullptr) {
      EXPECT_FALSE(seen.count(key)) << key;
    }
  }
  // Every table option is a profile key as well as a command-line option.
  for (const auto& name : seen)
    EXPECT_NE(std::find(workload_keys().begin(), workload_keys().end(), name),
              workload_keys().end())
        << name;
}

}  // namespace
}  // namespace testbed
