#include "controller/training/drps/disk_store_options.h"

namespace testbed {

std::vector<OptionSpec> disk_store_options() {
  using T = OptionSpec::Type;
  const DiskStoreKnobs d;
  return {
      {.name = "store",
       .type = T::kChoice,
       .fallback = "memory",
       .choices = {"memory", "disk"},
       .help = "where the servers keep the parameters: memory, or a RocksDB store per shard"},
      {.name = "memory-budget-mb",
       .type = T::kInt,
       .fallback = std::to_string(d.memory_budget_mb),
       .min = 1,
       .max = 65536,
       .help = "the disk store's memory for parameters (DRPS's budget)",
       .field = "memory_budget_mb",
       .arg = "M",
       .unit = "MiB"},
      {.name = "index",
       .type = T::kChoice,
       .fallback = d.index ? "on" : "off",
       .choices = {"on", "off"},
       .help = "the parameter index of the disk store (Sec. 4)"},
      {.name = "index-k",
       .type = T::kInt,
       .fallback = std::to_string(d.index_k),
       .min = 1,
       .max = 100000,
       .help = "the index's top k merged per round (the paper's 50)",
       .field = "index_k",
       .arg = "K"},
      {.name = "index-prune",
       .type = T::kReal,
       .fallback = number_text(d.index_prune),
       .min = 0,
       .max = 1,
       .help = "the share of sampled batches a key must be read by to be indexed",
       .field = "index_prune",
       .arg = "SHARE",
       .open = false},
      {.name = "partition",
       .type = T::kChoice,
       .fallback = d.partition ? "on" : "off",
       .choices = {"on", "off"},
       .help = "blocks placed on shards by their disk and network costs (Sec. 5, Alg. 3)"},
  };
}

std::vector<OptionSpec> drps_options() {
  std::vector<OptionSpec> o = disk_store_options();
  o.push_back({.name = "parallel",
               .type = OptionSpec::Type::kChoice,
               .fallback = "bsp",
               .choices = {"bsp", "ssp", "async", "wsp"},
               .help = "the servers' parallel model (WSP is the paper's)",
               .field = "consistency"});
  return o;
}

std::string check_disk_store_options(const nlohmann::json& values,
                                     const std::set<std::string>& given) {
  if (option_or<std::string>(values, "store", "memory") == "disk") return "";
  for (const auto& spec : disk_store_options())
    if (spec.name != "store" && given.count(spec.name))
      return "--" + spec.name + " is for --store disk";
  return "";
}

DiskStoreKnobs disk_store_knobs(const nlohmann::json& policy) {
  DiskStoreKnobs k;
  k.memory_budget_mb = option_or(policy, "memory_budget_mb", k.memory_budget_mb);
  k.index = option_or<std::string>(policy, "index", "off") == "on";
  k.index_k = option_or(policy, "index_k", k.index_k);
  k.index_prune = option_or(policy, "index_prune", k.index_prune);
  k.partition = option_or<std::string>(policy, "partition", "off") == "on";
  return k;
}

}  // namespace testbed
