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
  EXPECT_EQ(check_option(kSteps, "0"), "expected 1 to 100");
  EXPECT_EQ(check_option(kSteps, "2.5"), "expected a whole number");
  EXPECT_EQ(check_option(kSteps, "5x"), "expected a whole number");
  EXPECT_EQ(check_option(kRate, "0.25"), "");
  EXPECT_EQ(check_option(kRate, "1.5"), "expected 0 to 1");
  EXPECT_EQ(check_option(kRate, "nan"), "expected a number");
  EXPECT_EQ(check_option(kKind, "b"), "");
  EXPECT_EQ(check_option(kKind, "c"), "expected one of a, b");
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
      EXPECT_EQ(check_option(o, o.fallback), "") << t.name << ": --" << o.name;
      EXPECT_FALSE(o.help.empty()) << o.name;
      EXPECT_EQ(find_option(t, o.name), &o);
      ASSERT_NE(option_owner(o.name), nullptr);
      const auto [it, fresh] = first.emplace(o.name, &o);
      if (fresh) continue;
      const OptionSpec& a = *it->second;
      EXPECT_TRUE(a.type == o.type && a.fallback == o.fallback && a.min == o.min &&
                  a.max == o.max && a.choices == o.choices && a.key() == o.key())
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
