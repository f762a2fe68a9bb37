// testbed partition LAB NODE[,NODE...] [--for D | --heal]: a partition by hand, as a
// profile's `partitions:` gives one at set times. Every link direction crossing the cut
// (one end among NODEs, the other not) is cut, both ways, as `link down` cuts one.
// `--for D` waits D and restores the directions this call cut, and only those: a direction
// already down (another partition, a schedule, `link down`) stays as it was, so partitions
// given by hand may overlap. An interrupt ends the wait early and still restores them.
// `--heal` restores every crossing direction that is down, whatever cut it.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/timed_wait.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/link_control.h"
#include "controller/dynamics/rerouter.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/lab_state.h"
#include "netns/libnl_kernel.h"

namespace testbed::cli {
namespace {

std::set<std::string> split_nodes(const std::string& text) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma - start);
    if (name.empty()) throw UsageError("NODE,NODE...: an empty node name in '" + text + "'");
    out.insert(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void set_down(LinkChanger& changer, const std::string& dir, LiveDirection& d, bool down) {
  ScheduleChange change;
  change.down = down;
  apply_by_hand(changer, dir, d, change);
  std::cout << "link " << d.from << " -> " << d.to << (down ? " down" : " up") << "\n"
            << std::flush;
}

}  // namespace

int run_partition(const Argv& argv) {
  const std::string usage = usage_of("partition");
  Args args(argv, {"heal"}, {"for"});
  args.at_most(2, usage);
  if (args.positionals().size() != 2) throw UsageError("usage: " + usage);
  const bool heal = args.flag("heal");
  std::optional<Duration> length;
  if (const auto text = args.option("for")) {
    if (heal) throw UsageError("--for and --heal: one or the other");
    std::string why;
    length = parse_duration(*text, why);
    if (!length || length->us <= 0)
      throw UsageError("--for: " + (why.empty() ? "expected a length like 30s" : why));
  }
  const std::set<std::string> cut = split_nodes(args.positional(1));
  if (lacks_privileges("partition")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(args.positional(0));
  const LabState state = store.load(lab);
  for (const std::string& n : cut) {
    if (!plan_node(state.plan, n)) {
      std::cerr << "testbed partition: lab " << lab << " has no node '" << n << "'\n";
      return kExitInvalid;
    }
  }
  const std::string dir = store.dir(lab);
  auto directions = live_directions(state.plan, read_current(dir));
  std::vector<LiveDirection*> crossing;
  for (auto& d : directions) {
    if (cut.count(d.from) != cut.count(d.to)) crossing.push_back(&d);
  }
  if (crossing.empty()) {
    std::cerr << "testbed partition: the partition cuts no link of lab " << lab
              << " (nothing crosses it)\n";
    return kExitInvalid;
  }
  LabLinkChanger lab_changer(dir, state.plan);
  LinkChanger& changer = lab_changer.get();
  if (heal) {
    for (LiveDirection* d : crossing)
      if (d->down) set_down(changer, dir, *d, false);
    std::cout << reroute_summary(converge_by_hand(state.plan, dir)) << std::flush;
    return kExitOk;
  }
  const auto cut_at = std::chrono::steady_clock::now();
  std::vector<LiveDirection*> ours;
  for (LiveDirection* d : crossing) {
    if (d->down) continue;
    set_down(changer, dir, *d, true);
    ours.push_back(d);
  }
  std::cout << reroute_summary(converge_by_hand(state.plan, dir)) << std::flush;
  if (!length) return kExitOk;
  // The partition lasts D from the cut, the convergence inside it.
  const auto gone = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - cut_at)
                        .count();
  const int sig = wait_or_signal(std::max<int64_t>(1, length->us - gone));
  // What this call cut, as it stands now: another verb may have restored some meanwhile.
  const auto now = live_directions(state.plan, read_current(dir));
  for (LiveDirection* d : ours) {
    for (const auto& n : now) {
      if (n.key() != d->key() || !n.down) continue;
      LiveDirection fresh = n;
      set_down(changer, dir, fresh, false);
    }
  }
  std::cout << reroute_summary(converge_by_hand(state.plan, dir)) << std::flush;
  return sig == 0 ? kExitOk : 128 + sig;
}

}  // namespace testbed::cli
