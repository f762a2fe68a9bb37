#include "controller/launch/launch_plan.h"

#include "controller/lab/fit/fit_decision.h"
#include "controller/topology/units.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace testbed {
namespace {

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> split_nodes(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  if (!list.empty() && list.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

std::string substitute_placeholders(const std::string& arg, int rank, const std::string& node,
                                    const Plan& lab_plan) {
  std::string out;
  for (size_t i = 0; i < arg.size();) {
    const size_t open = arg.find('{', i);
    if (open == std::string::npos) {
      out += arg.substr(i);
      break;
    }
    out += arg.substr(i, open - i);
    const size_t close = arg.find('}', open);
    const std::string inner =
        close == std::string::npos ? "" : arg.substr(open + 1, close - open - 1);
    if (inner == "node") {
      out += node;
    } else if (inner == "rank") {
      out += std::to_string(rank);
    } else if (inner.rfind("addr:", 0) == 0) {
      const std::string target = inner.substr(5);
      const PlannedNode* n = plan_node(lab_plan, target);
      if (!n)
        throw LaunchInputError("{addr:" + target + "} in '" + arg + "': the lab has no node '" +
                               target + "'");
      out += n->address.str();
    } else {
      out += '{';  // not ours: kept verbatim
      i = open + 1;
      continue;
    }
    i = close + 1;
  }
  return out;
}

std::string default_job_name(const std::vector<std::string>& command) {
  if (command.empty()) return "job";
  static const std::set<std::string> interpreters = {
      "python", "python3", "bash", "sh", "perl", "ruby", "node", "Rscript", "torchrun"};
  std::string name = basename_of(command[0]);
  const bool interpreted =
      interpreters.count(name) > 0 || name.rfind("python3.", 0) == 0;  // python3.11 and the like
  if (interpreted) {
    // The first argument that is not an option is the script (python3 -u train.py).
    for (size_t i = 1; i < command.size(); ++i) {
      if (command[i].empty() || command[i][0] == '-') {
        if (command[i] == "-c" || command[i] == "-m") break;  // inline code: keep the name
        continue;
      }
      name = basename_of(command[i]);
      if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0)
        name = name.substr(0, dot);
      break;
    }
  }
  // Metric labels and file names take it as is: keep it to a safe alphabet.
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return name.empty() ? "job" : name;
}

std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::vector<std::string>& overrides) {
  std::map<std::string, size_t> index;
  std::vector<std::string> out;
  const auto key = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (const auto* list : {&base, &overrides}) {
    for (const auto& kv : *list) {
      const auto [it, fresh] = index.emplace(key(kv), out.size());
      if (fresh) {
        out.push_back(kv);
      } else {
        out[it->second] = kv;
      }
    }
  }
  return out;
}

std::vector<RankPlan> plan_launch(const Plan& lab_plan, const LaunchRequest& request) {
  if (request.command.empty() || request.command[0].empty())
    throw LaunchInputError("no command: give one after '--'");
  if (request.master_port < 1 || request.master_port > 65535)
    throw LaunchInputError("--master-port must be from 1 to 65535, not " +
                           std::to_string(request.master_port));
  std::vector<std::string> names;
  if (request.nodes == "all") {
    for (const auto& n : lab_plan.nodes) names.push_back(n.name);
  } else {
    names = split_nodes(request.nodes);
    std::set<std::string> seen;
    for (const auto& name : names) {
      if (name.empty()) throw LaunchInputError("--nodes '" + request.nodes + "': an empty name");
      if (!plan_node(lab_plan, name))
        throw LaunchInputError("--nodes: lab " + request.lab + " has no node '" + name + "'");
      if (!seen.insert(name).second)
        throw LaunchInputError("--nodes: '" + name + "' is named twice");
    }
  }
  if (names.empty()) throw LaunchInputError("lab " + request.lab + " has no nodes");
  const std::string master = plan_node(lab_plan, names.front())->address.str();
  const std::string world = std::to_string(names.size());
  std::vector<RankPlan> ranks;
  for (size_t r = 0; r < names.size(); ++r) {
    const PlannedNode& n = *plan_node(lab_plan, names[r]);
    RankPlan p;
    p.rank = static_cast<int>(r);
    p.node = names[r];
    p.ns = n.ns;
    p.address = n.address.str();
    for (const auto& arg : request.command)
      p.argv.push_back(substitute_placeholders(arg, p.rank, p.node, lab_plan));
    const std::string prefix = request.run_dir + "/" + p.node;
    p.metrics_path = prefix + ".metrics.jsonl";
    p.stdout_path = prefix + ".stdout";
    p.stderr_path = prefix + ".stderr";
    p.env = {"RANK=" + std::to_string(r), "WORLD_SIZE=" + world, "LOCAL_RANK=0",
             "LOCAL_WORLD_SIZE=1",
             "GROUP_RANK=" + std::to_string(r),  // torchrun's: one process per node
             "MASTER_ADDR=" + master, "MASTER_PORT=" + std::to_string(request.master_port),
             "TESTBED_LAB=" + request.lab, "TESTBED_NODE=" + p.node,
             "TESTBED_NODE_ADDR=" + p.address, "TESTBED_JOB=" + request.job,
             "TESTBED_RUN_DIR=" + request.run_dir, "TESTBED_METRICS=" + p.metrics_path,
             // The lab's fit (controller/lab/fit): its rates are the profile's times this; a
             // job that wants an iteration to take the profile's time scales its bytes by it.
             "TESTBED_FIT_FACTOR=" + format_factor(fit_factor_of(lab_plan.fit)),
             // Output reaches the terminal line by line, as it would on a tty: Python
             // buffers a pipe in 8 KB blocks otherwise, and a failed rank's last words
             // would be lost with its buffer.
             "PYTHONUNBUFFERED=1"};
    ranks.push_back(std::move(p));
  }
  return ranks;
}

}  // namespace testbed
