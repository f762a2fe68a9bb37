// testbed link set LAB A B [--dir a2b|b2a|both] [--rate R] [--delay D] [--loss L]:
// changes a live link in place. a2b is the direction from A to B as written here.
// testbed link down|up LAB A B [--dir ...]: cuts the link (a fault: it carries nothing,
// its queue is lost) and restores it, as a schedule's `state: down` and `state: up` do.
// Each change is logged in timeline.csv, as the timeline logs its own.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/link_control.h"
#include "controller/dynamics/rerouter.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/lab_state.h"
#include "netns/libnl_kernel.h"

namespace testbed::cli {
namespace {

template <typename T, typename Parse>
std::optional<T> option_value(const Args& args, const std::string& name, Parse parse) {
  const auto text = args.option(name);
  if (!text) return std::nullopt;
  std::string why;
  auto v = parse(*text, why);
  if (!v) throw UsageError("--" + name + ": " + why);
  return v;
}

}  // namespace

int run_link(const Argv& argv) {
  const std::string usage = usage_of("link");
  Args args(argv, {}, {"dir", "rate", "delay", "loss"});
  args.at_most(4, usage);
  const std::string verb = args.positional(0);
  if ((verb != "set" && verb != "down" && verb != "up") || args.positionals().size() != 4)
    throw UsageError("usage: " + usage);
  ScheduleChange change;
  change.rate = option_value<Rate>(args, "rate", parse_rate);
  change.delay = option_value<Duration>(args, "delay", parse_duration);
  change.loss = option_value<Fraction>(args, "loss", parse_percent);
  if (verb == "set" && !change.rate && !change.delay && !change.loss)
    throw UsageError("nothing to set; usage: " + usage);
  if (verb != "set" && (change.rate || change.delay || change.loss))
    throw UsageError("link " + verb + " takes only --dir; usage: " + usage);
  if (verb != "set") change.down = verb == "down";
  const std::string dir_opt = args.option("dir").value_or("both");
  if (dir_opt != "a2b" && dir_opt != "b2a" && dir_opt != "both") {
    throw UsageError("--dir must be a2b, b2a or both");
  }
  if (lacks_privileges("link")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(args.positional(1));
  const std::string a = args.positional(2), b = args.positional(3);
  const LabState state = store.load(lab);
  const std::string dir = store.dir(lab);
  auto directions = live_directions(state.plan, read_current(dir));
  std::vector<LiveDirection*> chosen;
  for (auto& d : directions) {
    const bool forward = d.from == a && d.to == b, backward = d.from == b && d.to == a;
    if ((forward && dir_opt != "b2a") || (backward && dir_opt != "a2b")) chosen.push_back(&d);
  }
  if (chosen.empty()) {
    std::cerr << "testbed link: lab " << lab << " has no link between '" << a << "' and '" << b
              << "'\n";
    return kExitInvalid;
  }
  LabLinkChanger lab_changer(dir, state.plan);
  LinkChanger& changer = lab_changer.get();
  for (LiveDirection* d : chosen) {
    apply_by_hand(changer, dir, *d, change);
    std::cout << "link " << d->from << " -> " << d->to << ": " << format_rate(d->params.rate) << " "
              << format_duration(d->params.delay) << " " << format_percent(d->params.loss)
              << (d->down ? " down" : "") << "\n";
  }
  if (change.down) std::cout << reroute_summary(converge_by_hand(state.plan, dir)) << std::flush;
  return kExitOk;
}

}  // namespace testbed::cli
