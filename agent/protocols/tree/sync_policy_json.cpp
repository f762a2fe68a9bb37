#include "sync_policy_json.h"

namespace testbed {

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
  p.version = j.value("version", uint64_t{0});
  for (const auto& t : j.at("trees")) {
    p.trees.push_back({t.at("root").get<int>(), t.at("parent").get<std::vector<int>>(),
                       t.at("share").get<double>()});
  }
  if (j.contains("aux")) {
    const auto& a = j.at("aux");
    AuxiliaryPaths aux;
    aux.primary_busy_bound = a.at("primary_busy_bound").get<int>();
    aux.queue_length = a.at("queue_length").get<int>();
    for (const auto& r : a.at("routes")) {
      aux.routes[{r.at("from").get<int>(), r.at("to").get<int>()}] =
          r.at("routes").get<std::vector<std::vector<int>>>();
    }
    p.aux = std::move(aux);
  }
  return p;
}

}  // namespace testbed
