// testbed capture [LAB] (A B | --node N | --all) [--dir a2b|b2a|both] [--duration T]
// [--snaplen N] --out FILE [--json]: the packets of link directions, each captured where it
// is sent, in one pcapng file (runs/packet_capture_run.h). a2b is from A to B as written
// here, as for `link set`.
#include <csignal>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/link_control.h"
#include "controller/lab/lab_state.h"
#include "controller/runs/packet_capture_run.h"
#include "controller/topology/units.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

// The snap length's bounds: an Ethernet header and an IP one at least; libpcap's own
// largest (MAXIMUM_SNAPLEN) at most.
constexpr int kMinSnaplen = 34;
constexpr int kMaxSnaplen = 262144;

}  // namespace

int run_capture(const Argv& argv) {
  const std::string usage = usage_of("capture");
  Args args(argv, {"all", "json"}, {"node", "dir", "duration", "snaplen", "out"});
  args.at_most(3, usage);
  const auto out = args.option("out");
  if (!out) throw UsageError("--out FILE.pcapng is needed; usage: " + usage);
  const bool all = args.flag("all");
  const auto node = args.option("node");
  // LAB is optional: one positional with --node/--all is the lab; two are A B; three LAB A B.
  const size_t ends = (all || node) ? 0 : 2;
  const size_t given = args.positionals().size();
  if ((all && node) || given < ends || given > ends + 1)
    throw UsageError("capture takes A B, --node N or --all; usage: " + usage);
  const std::string dir_opt = args.option("dir").value_or("both");
  if (dir_opt != "a2b" && dir_opt != "b2a" && dir_opt != "both")
    throw UsageError("--dir must be a2b, b2a or both");
  if (args.option("dir") && ends == 0) throw UsageError("--dir goes with A B");
  CaptureOptions options;
  options.out = *out;
  if (auto d = args.option("duration")) {
    std::string why;
    const auto duration = parse_duration(*d, why);
    if (!duration || duration->us <= 0)
      throw UsageError("--duration: " + (why.empty() ? "must be above 0" : why));
    options.duration_s = static_cast<double>(duration->us) / 1e6;
  }
  if (auto s = args.option("snaplen")) {
    try {
      options.snaplen = std::stoi(*s);
    } catch (const std::exception&) {
      options.snaplen = 0;
    }
    if (options.snaplen < kMinSnaplen || options.snaplen > kMaxSnaplen)
      throw UsageError("--snaplen must be a whole number from " + std::to_string(kMinSnaplen) +
                       " to " + std::to_string(kMaxSnaplen));
  }
  if (lacks_privileges("capture")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(given > ends ? args.positional(0) : "");
  const std::string a = ends ? args.positional(given - 2) : "";
  const std::string b = ends ? args.positional(given - 1) : "";
  const LabState state = store.load(lab);
  std::vector<CaptureTarget> targets;
  size_t elsewhere = 0;
  for (const auto& d : live_directions(state.plan, read_current(store.dir(lab)))) {
    bool chosen = all;
    if (node) chosen = d.from == *node || d.to == *node;
    if (ends) {
      const bool forward = d.from == a && d.to == b, backward = d.from == b && d.to == a;
      chosen = (forward && dir_opt != "b2a") || (backward && dir_opt != "a2b");
    }
    if (!chosen) continue;
    if (!d.local_tx) {  // sent, so captured, on another host of a lab spread over hosts
      ++elsewhere;
      continue;
    }
    targets.push_back({d.from + "->" + d.to,
                       "link " + std::to_string(d.link) + (d.b2a ? " b2a" : " a2b") + ", sent by " +
                           d.from + " on " + d.ns + "/" + d.dev,
                       d.ns, d.dev});
  }
  if (targets.empty()) {
    std::cerr << "testbed capture: lab " << lab << " has "
              << (elsewhere ? "those directions only on other hosts (capture there)"
                  : ends    ? "no link between '" + a + "' and '" + b + "'"
                  : node    ? "no node '" + *node + "' with links"
                            : "no links")
              << "\n";
    return kExitInvalid;
  }
  if (elsewhere)
    std::cerr << "testbed capture: " << elsewhere
              << " direction(s) are sent on other hosts: capture them there\n";
  StopSignals stop_signals({SIGINT, SIGTERM});  // netns/stop_signals.h
  CaptureOutcome outcome;
  try {
    outcome = run_packet_capture(targets, options, stop_signals.received(), std::cerr);
  } catch (const std::runtime_error& e) {
    std::cerr << "testbed capture: " << e.what() << "\n";
    return kExitFailure;
  }
  if (args.flag("json")) {
    nlohmann::json j = outcome.to_json();
    j["lab"] = lab;
    j["file"] = options.out;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << outcome.packets << " packets of " << targets.size() << " link direction(s) in "
              << options.out << "\n";
    for (const auto& d : outcome.directions) {
      std::cout << "  " << d.name << ": " << d.packets << " (the device sent " << d.kernel_sent
                << ")"
                << (d.dropped ? ", " + std::to_string(d.dropped) + " lost by the capture" : "")
                << "\n";
    }
  }
  return kExitOk;
}

}  // namespace testbed::cli
