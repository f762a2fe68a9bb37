// A plan step as JSON and back. plan.json carries the steps so that `down` can undo, one
// by one, what a slice did inside namespaces it adopted (a pod's, made by Kubernetes), where
// deleting the namespace is not the testbed's to do.
#pragma once

#include <nlohmann/json.hpp>

#include "controller/lab/plan.h"

namespace testbed {

nlohmann::json route_to_json(const RouteSpec& r);
nlohmann::json step_to_json(const Step& step);
// Throws std::invalid_argument naming the field when `j` is not a step step_to_json wrote.
Step step_from_json(const nlohmann::json& j);

}  // namespace testbed
