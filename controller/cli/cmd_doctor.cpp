// testbed doctor [--budget [--seconds S]] [--json]: what the kernel offers and what the
// testbed will use; with --budget, what this machine's emulation carries while healthy,
// measured on a lab of its own and kept for `--fit` (controller/lab/fit, docs/fit.md).
#include <iomanip>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/fit/emulation_budget.h"
#include "controller/lab/plan_table.h"
#include "controller/runs/budget_probe.h"
#include "netns/capabilities.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

void print_budget(const EmulationBudget& b, std::ostream& out) {
  out << std::fixed << std::setprecision(0) << "  " << b.packets_per_s(b.cpus)
      << " packets/s through the " << b.backend << " (" << std::setprecision(1)
      << b.bits_per_s(b.cpus) / 1e6 << " Mbit/s of bulk TCP) on " << b.cpu_scope << " at "
      << std::setprecision(0) << kFitBusyShare * 100 << "% busy\n"
      << std::setprecision(1) << "  " << b.cpu_us_per_packet
      << " us of CPU per packet, all processes and the kernel: the delay lines "
      << std::setprecision(0) << b.delay_line_cpu_share * 100 << "%, the traffic's own "
      << b.traffic_cpu_share * 100 << "%\n"
      << "  measured " << b.measured_at << "; kept in " << budget_path() << "\n";
}

}  // namespace

int run_doctor(const Argv& argv) {
  Args args(argv, {"budget", "json"}, {"seconds"});
  args.at_most(0, "testbed doctor [--budget [--seconds S]] [--json]");
  if (lacks_privileges("doctor")) return kExitFailure;
  if (args.flag("budget")) {
    BudgetProbeOptions options;
    if (const auto s = args.option("seconds")) {
      try {
        options.seconds = std::stod(*s);
      } catch (const std::exception&) {
        options.seconds = 0;
      }
      if (!(options.seconds >= 2 && options.seconds <= 600))
        throw UsageError("--seconds must be 2..600, not '" + *s + "'");
    }
    const StopSignals stop;  // netns/stop_signals.h: the probe's lab comes down on Ctrl-C
    const EmulationBudget b = measure_budget(options, std::cerr, stop.received());
    save_budget(b, budget_path());
    if (args.flag("json")) {
      std::cout << budget_to_json(b).dump() << "\n";
    } else {
      std::cout << "this machine's emulation budget:\n";
      print_budget(b, std::cout);
    }
    return kExitOk;
  }
  const auto caps = probe_capabilities();
  TextTable t({"FEATURE", "AVAILABLE", "DETAIL"});
  for (const auto& c : caps) t.add({c.name, c.available ? "yes" : "no", c.detail});
  t.print(std::cout, "");
  const bool core =
      has_capability(caps, "netns") && has_capability(caps, "veth") && has_capability(caps, "tbf");
  const NetemSupport netem = detect_netem();
  std::cout << "\nthe testbed will use:\n"
            << "  topology:  network namespaces joined by veth pairs"
            << (core ? "" : "  (UNAVAILABLE: the testbed cannot run here)") << "\n"
            << "  bandwidth: a TBF per link direction on the sender's egress, changed in place\n"
            << "  delay, jitter, loss (backend auto): ";
  if (netem.available) {
    std::cout << "netem on an IFB device at each receiving side; sch_netem is " << netem.how
              << "\n";
  } else {
    std::cout << "the userspace delay line on each receiving side (iptables NFQUEUE); sch_netem is "
              << netem.how
              << (has_capability(caps, "nfqueue") ? "" : ". NFQUEUE is UNAVAILABLE too") << "\n";
  }
  std::cout << "  (force one with `up --backend netem|delayline` or `backend:` in the profile)\n";
  std::cout << "\nthe emulation's budget (for --fit):\n";
  try {
    if (const auto b = load_budget(budget_path())) {
      print_budget(*b, std::cout);
    } else {
      std::cout << "  not measured: testbed doctor --budget\n";
    }
  } catch (const std::exception& e) {
    std::cout << "  " << e.what() << "\n";
  }
  return core ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
