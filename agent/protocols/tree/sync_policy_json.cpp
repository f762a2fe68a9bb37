#include "agent/protocols/tree/sync_policy_json.h"

#include <limits>

namespace testbed {
namespace {

// A whole number of type T, else a json::type_error. nlohmann's get<int>() converts a
// float, or a number beyond int's range, with undefined behaviour (found by fuzzing).
template <typename T>
T whole(const nlohmann::json& v) {
  using limits = std::numeric_limits<T>;
  if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(limits::max()))
    return static_cast<T>(v.get<uint64_t>());
  if (v.is_number_integer() && !v.is_number_unsigned() &&
      v.get<int64_t>() >= static_cast<int64_t>(limits::min()) &&
      (limits::is_signed || v.get<int64_t>() >= 0))
    return static_cast<T>(v.get<int64_t>());
  throw nlohmann::json::type_error::create(302, "expected a whole number in range, not " + v.dump(),
                                           &v);
}

std::vector<int> whole_list(const nlohmann::json& v) {
  if (!v.is_array()) throw nlohmann::json::type_error::create(302, "expected a list", &v);
  std::vector<int> out;
  for (const auto& x : v) out.push_back(whole<int>(x));
  return out;
}

}  // namespace

nlohmann::json to_json(const SyncPolicy& p) {
  nlohmann::json trees = nlohmann::json::array();
  for (const auto& t : p.trees)
    trees.push_back({{"root", t.root}, {"parent", t.parent}, {"share", t.share}});
  nlohmann::json j = {{"strategy", p.strategy}, {"version", p.version}, {"trees", trees}};
  if (p.aux) {
    nlohmann::json routes = nlohmann::json::array();
    for (const auto& [edge, r] : p.aux->routes)
      routes.push_back({{"from", edge.first}, {"to", edge.second}, {"routes", r}});
    j["aux"] = {{"primary_busy_bound", p.aux->primary_busy_bound},
                {"queue_length", p.aux->queue_length},
                {"routes", routes}};
  }
  return j;
}

SyncPolicy policy_from_json(const nlohmann::json& j) {
  SyncPolicy p;
  p.strategy = j.value("strategy", "");
  p.version = j.contains("version") ? whole<uint64_t>(j.at("version")) : 0;
  for (const auto& t : j.at("trees")) {
    p.trees.push_back(
        {whole<int>(t.at("root")), whole_list(t.at("parent")), t.at("share").get<double>()});
  }
  if (j.contains("aux")) {
    const auto& a = j.at("aux");
    AuxiliaryPaths aux;
    aux.primary_busy_bound = whole<int>(a.at("primary_busy_bound"));
    aux.queue_length = whole<int>(a.at("queue_length"));
    for (const auto& r : a.at("routes")) {
      std::vector<std::vector<int>> routes;
      for (const auto& route : r.at("routes")) routes.push_back(whole_list(route));
      aux.routes[{whole<int>(r.at("from")), whole<int>(r.at("to"))}] = std::move(routes);
    }
    p.aux = std::move(aux);
  }
  return p;
}

}  // namespace testbed
