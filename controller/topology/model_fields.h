// What the parsers of a node's seeded models in a profile (its straggler, its churn) check
// alike: that the model is a map, that its keys are known, and its seed; each failure said
// at its own FILE:LINE:COL with the model's prefix ("node 'x' churn: ...").
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "controller/topology/schedule.h"

namespace testbed {

class ModelFields {
 public:
  ModelFields(const YAML::Node& node, std::string where, const YamlErrorSink& error)
      : node_(node), where_(std::move(where)), error_(error) {}

  // False, and said with `example` (the model as it would be written), when it is no map.
  bool is_map(const std::string& example);
  // Each key not among `allowed` is said to be unknown, naming those allowed.
  void allow(std::initializer_list<const char*> allowed);
  void fail(const YAML::Node& at, const std::string& message);
  // The model's own seed when it has one (a whole number, else said); `out` is kept
  // otherwise (the profile's seed).
  void seed(uint64_t& out);
  bool ok() const { return ok_; }

 private:
  const YAML::Node& node_;
  std::string where_;
  const YamlErrorSink& error_;
  bool ok_ = true;
};

}  // namespace testbed
