#include "controller/topology/burst_loss_parser.h"

#include <algorithm>
#include <string>
#include <vector>

#include "controller/topology/units.h"

namespace testbed {
namespace {

const std::vector<std::string> kModelKeys = {"p", "r", "bad", "good"};

}  // namespace

std::optional<GilbertElliott> parse_burst_loss(const YAML::Node& loss, const YamlErrorSink& error) {
  if (!loss.IsMap() || loss.size() != 1 || !loss["gilbert_elliott"]) {
    error(loss, "loss: expected a percentage (e.g. 0.1%) or {gilbert_elliott: {p: 1%, r: 25%}}");
    return std::nullopt;
  }
  const YAML::Node m = loss["gilbert_elliott"];
  if (!m.IsMap()) {
    error(m, "loss.gilbert_elliott: expected a mapping of p, r, bad and good");
    return std::nullopt;
  }
  bool ok = true;
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(kModelKeys.begin(), kModelKeys.end(), key) == kModelKeys.end()) {
      error(it->first,
            "loss.gilbert_elliott: unknown key '" + key + "' (expected p, r, bad or good)");
      ok = false;
    }
  }
  GilbertElliott model;
  auto read = [&](const char* key, double& into, bool required) {
    const YAML::Node v = m[key];
    const std::string field = std::string("loss.gilbert_elliott.") + key;
    if (!v) {
      if (required) {
        error(m, field + ": missing (the per-packet chance of " +
                     (std::string(key) == "p" ? "entering" : "leaving") + " the bad state)");
        ok = false;
      }
      return;
    }
    std::string why;
    const auto f = v.IsScalar() ? parse_percent(v.Scalar(), why) : std::nullopt;
    if (!f) {
      error(v, field + ": " + (why.empty() ? "expected a percentage" : why));
      ok = false;
      return;
    }
    into = f->value;
  };
  read("p", model.p, true);
  read("r", model.r, true);
  read("bad", model.bad_loss, false);
  read("good", model.good_loss, false);
  if (!ok) return std::nullopt;
  if (model.r == 0) {
    error(m["r"], "loss.gilbert_elliott.r: 0% would leave the bad state never");
    return std::nullopt;
  }
  if (model.mean_loss() == 0) {
    error(m, "loss.gilbert_elliott: this model loses nothing (p or bad is 0%, and good is 0%)");
    return std::nullopt;
  }
  return model;
}

std::string format_burst_loss(const GilbertElliott& m) {
  return "gilbert_elliott p " + format_percent(Fraction{m.p}) + " r " +
         format_percent(Fraction{m.r}) + " bad " + format_percent(Fraction{m.bad_loss}) + " good " +
         format_percent(Fraction{m.good_loss});
}

}  // namespace testbed
