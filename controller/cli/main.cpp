// testbed: build emulated WANs of network namespaces and shaped links.
#include <sys/stat.h>

#include <iostream>
#include <map>
#include <system_error>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/train_args.h"
#include "controller/cli/verbs.h"
#include "netns/crash_point.h"
#include "netns/kernel.h"

namespace {

using testbed::cli::verbs;

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
  // The schedule runner, the cross-traffic generators and the exporter that `up` starts, and the
  // supervisor of each launched rank; hidden from the usage text.
  const std::map<std::string, int (*)(const testbed::cli::Argv&)> hidden = {
      {"_timeline", testbed::cli::run_timeline},
      {"_traffic", testbed::cli::run_traffic},
      {"_flows", testbed::cli::run_flows},
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
      std::cout << "\nstrategies:\n"
                << testbed::cli::train_strategies_help() << "\nall options:\n  "
                << testbed::cli::train_usage() << "\n";
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
