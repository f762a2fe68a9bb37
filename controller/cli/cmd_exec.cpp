// testbed exec [--lab LAB] NODE -- CMD...: runs CMD inside NODE's namespace. The process
// replaces this one (so its exit status is ours) after recording its pid in the lab's
// state, so that `down` can end it if it is still running.
#include <unistd.h>

#include <cstring>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"

namespace testbed::cli {

int run_exec(const Argv& argv) {
  Args args(argv, {}, {"lab"});
  const std::string usage = usage_of("exec");
  args.at_most(1, usage);
  if (args.positionals().empty() || args.rest().empty()) throw UsageError("usage: " + usage);
  if (lacks_privileges("exec")) return kExitFailure;
  LabStore store;
  const std::string lab = store.resolve(args.option("lab").value_or(""));
  const std::string node = args.positional(0);
  std::string ns;
  {
    auto lock = store.lock(lab, /*wait=*/true);
    LabState state = store.load(lab);
    if (state.phase != "up") {
      std::cerr << "testbed exec: lab " << lab << " is " << state.phase << ", not up\n";
      return kExitFailure;
    }
    if (const PlannedNode* n = plan_node(state.plan, node)) ns = n->ns;
    if (ns.empty()) {
      std::cerr << "testbed exec: lab " << lab << " has no node '" << node << "'\n";
      return kExitInvalid;
    }
    // Forget processes that have exited, then record this one.
    std::erase_if(state.processes,
                  [](const ProcessRecord& p) { return process_start_time(p.pid) != p.start_time; });
    // Its own owner: the record is forgotten by `clean` once the command has ended.
    state.processes.push_back(
        owned_by_me({getpid(), process_start_time(getpid()), node, args.rest()}));
    store.save(state);
  }
  enter_netns_for_exec(ns);
  std::vector<char*> cargv;
  for (const auto& a : args.rest()) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  std::cerr << "testbed exec: " << args.rest()[0] << ": " << std::strerror(errno) << "\n";
  return errno == ENOENT ? 127 : 126;  // the shell's conventions for "not found" / "not runnable"
}

}  // namespace testbed::cli
