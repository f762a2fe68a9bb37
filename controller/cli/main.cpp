// testbed: build emulated WANs of network namespaces and shaped links.
#include <sys/stat.h>

#include <iostream>
#include <map>
#include <system_error>

#include "args.h"
#include "commands.h"
#include "crash_point.h"
#include "kernel.h"
#include "train_args.h"

namespace {

struct Verb {
  int (*run)(const testbed::cli::Argv&);
  const char* usage;
  const char* summary;
  const char* details = nullptr;  // more, for `testbed VERB --help`
};

const std::map<std::string, Verb>& verbs() {
  using namespace testbed::cli;
  static const std::map<std::string, Verb> kVerbs = {
      {"validate",
       {run_validate, "validate FILE", "check a topology profile and report every error"}},
      {"plan",
       {run_plan,
        "plan FILE [--json] [--steps] [--routes] [--backend B] [--hosts N|PLACEMENT [--host H]]",
        "show what 'up' would create (no root needed); with --hosts, cut over hosts"}},
      {"up",
       {run_up,
        "up FILE [--dry-run] [--backend auto|netem|delayline] [--time-scale X] [--prometheus "
        "on|off|existing] [--grafana] [--hosts N|PLACEMENT --host H] [--adopt] [--start-at T] "
        "[--metrics ADDR:PORT] [--foreground]",
        "create the lab (namespaces, shaped links, delay, routes) and start its schedules",
        "one lab over several hosts (docs/multihost.md):\n"
        "  --hosts N|PLACEMENT --host H  bring up only host H's slice: its nodes, the links\n"
        "                                among them, its ends of links to other hosts (VXLANs\n"
        "                                it makes when PLACEMENT gives the hosts' underlay;\n"
        "                                otherwise made by others: meshnet, a CNI)\n"
        "  --adopt                       use node namespaces that already exist (a pod's);\n"
        "                                down undoes what up did in them and keeps them\n"
        "  --start-at T                  the schedules' time zero, Unix seconds: the same on\n"
        "                                every host, so their link changes coincide\n"
        "  --metrics ADDR:PORT           where the exporter listens: 127.0.0.1 or 0.0.0.0\n"
        "  --foreground                  stay until a signal, then take the lab down"}},
      {"export",
       {run_export, "export k8s FILE --out DIR [--namespace NS] [--image IMAGE] [--metrics-port P]",
        "write the lab as Kubernetes resources for meshnet-cni (no root needed)",
        "files written in DIR:\n"
        "  meshnet-topology.yaml  a meshnet Topology per data center: its links, each with\n"
        "                         the same uid at both ends, the testbed's interface names\n"
        "                         and /30 addresses\n"
        "  testbed-pods.yaml      a ConfigMap (the profile, the placement) and a Pod per data\n"
        "                         center: the testbed as a native sidecar (IMAGE, default\n"
        "                         testbed:latest; NET_ADMIN, NET_RAW, SYS_ADMIN) applying\n"
        "                         that pod's slice, ready when its startupProbe passes;\n"
        "                         Prometheus scrape annotations for port P (default 9464);\n"
        "                         a stand-in 'workload' container to replace with your own\n"
        "  placement.yaml         every pod its own host, as the sidecars read it\n"
        "apply meshnet-topology.yaml before testbed-pods.yaml (docs/multihost.md)"}},
      {"down", {run_down, "down [LAB]", "remove everything the lab created"}},
      {"status",
       {run_status, "status [LAB] [--json] [--routes] [--ready]",
        "list labs, or one lab's nodes, links and routes (--routes: every route, however "
        "many; --ready: exit status only, 0 when up)"}},
      {"exec",
       {run_exec, "exec [--lab LAB] NODE -- CMD...", "run a command inside a node's namespace"}},
      {"launch",
       {run_launch,
        "launch [LAB] [--nodes all|N1,N2,...] [--max-seconds T] [--target-loss L] [--name "
        "NAME] [--master-port P] [--json] -- CMD [ARGS...]",
        "run your own program (a PyTorch job, any command) once in each node with torchrun's "
        "environment; its metric lines, WAN bytes and the emulation's health are recorded"}},
      {"agents",
       {run_agents, "agents [LAB] --control tcp://ADDR:PORT",
        "on a host of a lab spread over hosts: run its nodes' agents for a train controlled "
        "from another host (train --agents-listen ADDR:PORT)"}},
      {"clean", {run_clean, "clean [--all]", "remove what crashed runs left (--all: every lab)"}},
      {"link",
       {run_link, "link set LAB A B [--dir a2b|b2a|both] [--rate R] [--delay D] [--loss L]",
        "change a live link in place"}},
      {"train",
       {run_train,
        "train [LAB] [--strategy ps|bkt|mst|fapt|netstorm-lite|netstorm-std|netstorm-pro|netstorm|"
        "bsp|ssp|async|apsp|ps-most-connected|ps-random[@NODE]] [--iterations N] [--model "
        "M|logreg|mf|sparse-lr] [--compute-ms "
        "MS|MIN-MAX] [--json] [--agents-listen ADDR:PORT] ... (defaults: the profile's workload)",
        "synchronize a model over the lab with a strategy, or train a job on a parameter "
        "server; report iteration times and loss",
        "a lab spread over hosts (docs/multihost.md): run train on one host's slice with\n"
        "  --agents-listen ADDR:PORT  an address of this host that the other hosts reach;\n"
        "                             on each other host run\n"
        "                             testbed agents LAB --control tcp://ADDR:PORT\n"
        "                             (either may start first; a lost host is named)"}},
      {"report",
       {run_report, "report LAB|DIR [--out DIR]",
        "draw PNG plots of a lab's runs and links (gnuplot), for use without Grafana"}},
      {"run",
       {run_run, "run SCENARIO [--out DIR]",
        "run a scenario: each strategy on the same seeded WAN, judged by its expectations"}},
      {"regress",
       {run_regress,
        "regress DIR [--out DIR] [--junit FILE] [--baseline FILE] [--tolerance X] [--save-baseline "
        "FILE]",
        "run every scenario in DIR; pass/fail table, JUnit XML, regressions against a baseline"}},
      {"doctor", {run_doctor, "doctor", "probe the kernel's emulation features"}},
      {"placement",
       {run_placement,
        "placement FILE [--model M] [--scale S] [--rate-scale X] [--server NODE] [--capacity "
        "undirected|directed] [--seed N] [--draws R] [--redraws N] [--json]",
        "where APSP puts the parameter server: LP bounds, epoch times, paths and rates"}},
  };
  return kVerbs;
}

void usage(std::ostream& out) {
  out << "usage: testbed VERB [ARGS]\n\n";
  for (const auto& [name, verb] : verbs()) {
    out << "  testbed " << verb.usage << "\n      " << verb.summary << "\n";
  }
  out << "\nFILE may be a path or the name of a bundled profile (internet2.yaml, b4.yaml).\n"
      << "Exit status: 0 success, 1 failure, 2 invalid input (nothing was changed).\n";
}

// `testbed VERB --help`: the verb's usage, before anything runs (exec's command after
// "--" may have its own --help).
bool wants_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Everything the testbed creates, and everything it starts creates, is root's alone
  // unless it says otherwise (the nodes' hosts files, /run/netns): it runs as root, and
  // other users of the machine must not read or steer a lab.
  umask(077);
  testbed::enable_crash_points();  // inert unless a crash test asks (netns/crash_point.h)
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? testbed::cli::kExitInvalid : testbed::cli::kExitOk;
  }
  // The schedule runner and the exporter that `up` starts, and the supervisor of each
  // launched rank; hidden from the usage text.
  const std::map<std::string, int (*)(const testbed::cli::Argv&)> hidden = {
      {"_timeline", testbed::cli::run_timeline},
      {"_exporter", testbed::cli::run_exporter},
      {"_rank", testbed::cli::run_rank}};
  if (const auto h = hidden.find(argv[1]); h != hidden.end()) {
    try {
      return h->second(testbed::cli::Argv(argv + 2, argv + argc));
    } catch (const std::exception& e) {
      std::cerr << "testbed " << h->first << ": " << e.what() << "\n";
      return testbed::cli::kExitFailure;
    }
  }
  const auto it = verbs().find(argv[1]);
  if (it == verbs().end()) {
    std::cerr << "testbed: unknown verb '" << argv[1] << "'\n\n";
    usage(std::cerr);
    return testbed::cli::kExitInvalid;
  }
  if (wants_help(argc, argv)) {
    std::cout << "usage: testbed " << it->second.usage << "\n  " << it->second.summary << "\n";
    if (it->second.details) std::cout << "\n" << it->second.details << "\n";
    if (it->first == "train")
      std::cout << "\nall options:\n  " << testbed::cli::kTrainUsage << "\n";
    return testbed::cli::kExitOk;
  }
  try {
    return it->second.run(testbed::cli::Argv(argv + 2, argv + argc));
  } catch (const testbed::UsageError& e) {
    std::cerr << "testbed " << it->first << ": " << e.what() << "\n";
    return testbed::cli::kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "testbed " << it->first << ": " << e.what() << "\n";
    return testbed::cli::kExitFailure;
  }
}
