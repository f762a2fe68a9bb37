#include "controller/dynamics/timeline.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <optional>

#include "controller/dynamics/convergence_worker.h"
#include "controller/dynamics/node_compute_control.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/plan.h"
#include "controller/topology/partitions.h"
#include "controller/topology/schedule.h"
#include "controller/topology/straggler.h"

namespace testbed {
namespace {

// Schedules are expanded this much schedule time at a time: endless schedules (random,
// looping traces) never have to be held whole.
constexpr int64_t kWindowUs = 10 * 1000000;
// While waiting for a change the timeline wakes at least this often to see a stop request.
constexpr int64_t kStopCheckNs = 100 * 1000000;

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void sleep_until(int64_t target_ns) {
  const timespec ts{static_cast<time_t>(target_ns / 1000000000),
                    static_cast<long>(target_ns % 1000000000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

// The schedule time after which a direction changes no more; nullopt when it never ends.
std::optional<int64_t> last_change(const Schedule& s) {
  switch (s.kind) {
    case Schedule::Kind::kNone:
      return -1;
    case Schedule::Kind::kSteps:
      return s.changes.empty() ? -1 : s.changes.back().at_us;
    case Schedule::Kind::kTrace:
      if (s.loop) return std::nullopt;
      return s.changes.empty() ? -1 : s.changes.back().at_us;
    case Schedule::Kind::kRandom:
    case Schedule::Kind::kFlap:
      return std::nullopt;
  }
  return -1;
}

int64_t real_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace

std::vector<LiveNodeSchedule> live_node_schedules(const Plan& plan) {
  std::vector<LiveNodeSchedule> out;
  uint64_t index = 0;
  for (const auto& n : plan.nodes) {
    LiveNodeSchedule s;
    s.node = n.name;
    s.changes = node_changes(n.events);
    s.straggler = n.straggler;
    s.cpus = n.compute.cpus.value_or(0);
    s.stream = index++;
    if (!s.changes.empty() || s.straggler) out.push_back(std::move(s));
  }
  return out;
}

int64_t monotonic_zero_ns(double start_at_unix_s, int64_t real_now_ns, int64_t mono_now_ns) {
  const auto start_ns = static_cast<int64_t>(start_at_unix_s * 1e9);
  return mono_now_ns + (start_ns - real_now_ns);
}

void Timeline::run() {
  bool endless = false;  // some schedule never ends (random, flaps, or a looping trace)
  int64_t end_us = -1;
  for (const auto& d : directions_) {
    const auto last = last_change(d.params.schedule);
    endless = endless || !last;
    if (last) end_us = std::max(end_us, *last);
    if (!d.params.faults.empty()) end_us = std::max(end_us, d.params.faults.back().at_us);
  }
  for (const auto& n : nodes_) {
    if (!n.changes.empty()) end_us = std::max(end_us, n.changes.back().at_us);
    endless = endless || n.straggler.has_value();
  }
  std::ofstream log(options_.lab_dir + "/timeline.csv", std::ios::app);
  log << kTimelineHeader << std::flush;

  // The two clocks are read back to back; what passes between the reads (microseconds)
  // is the error of placing the shared time zero on this host's monotonic clock.
  const int64_t real_now = real_ns();
  const int64_t mono_now = mono_ns();
  const int64_t t0 = options_.start_at_unix_s > 0
                         ? monotonic_zero_ns(options_.start_at_unix_s, real_now, mono_now)
                         : mono_now;
  // timeline.csv's times are since t0; this puts t0 on the wall clock, so a run's
  // iterations (train_started_unix_s) can be placed among the changes.
  std::ofstream(options_.lab_dir + "/timeline-start")
      << std::fixed << std::setprecision(6) << (real_now + (t0 - mono_now)) / 1e9 << "\n";
  // Routes converge on a thread of their own (convergence_worker.h), with the rerouter's
  // own kernel: a change never waits for a convergence.
  std::optional<ConvergenceWorker> worker;
  if (rerouter_ && rerouter_->convergence_us())
    worker.emplace([this] { rerouter_->converge(); },
                   [](const std::string& what) {
                     std::fprintf(stderr, "testbed timeline: reroute: %s\n", what.c_str());
                   },
                   stop_);
  for (int64_t window = 0; !stop_ && (endless || window <= end_us); window += kWindowUs) {
    struct Due {
      int64_t at_us;
      size_t direction;  // or the node, when `node_event`
      ScheduleChange change;
      std::optional<NodeEvent::Kind> node_event;
      std::optional<double> cpus;  // a cpus event's share
    };
    std::vector<Due> due;
    for (size_t i = 0; i < directions_.size(); ++i) {
      const auto& d = directions_[i];
      for (const auto& c :
           schedule_changes(d.params.schedule, d.stream, window, window + kWindowUs)) {
        if (c.at_us > 0)
          due.push_back(
              {c.at_us, i, c, std::nullopt, std::nullopt});  // time 0 is the planned state
      }
      // The partitions that cut it (never at time 0: a lab comes up whole).
      for (const auto& c : fault_changes(d.params, window, window + kWindowUs))
        due.push_back({c.at_us, i, c, std::nullopt, std::nullopt});
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      for (const auto& c : nodes_[i].changes)
        if (c.at_us >= window && c.at_us < window + kWindowUs)
          due.push_back({c.at_us, i, {}, c.kind, c.cpus});
      auto& n = nodes_[i];
      if (n.straggler) {
        for (const auto& c : straggler_changes(*n.straggler, n.cpus, n.stream, window,
                                               window + kWindowUs, n.slowed))
          due.push_back({c.at_us, i, {}, c.kind, c.cpus});
      }
    }
    std::stable_sort(due.begin(), due.end(),
                     [](const Due& a, const Due& b) { return a.at_us < b.at_us; });
    // Changes due at the same instant (NetStorm redraws every direction at once) are
    // applied back to back, and current.json is written once for all of them.
    for (size_t first = 0; first < due.size();) {
      size_t last = first;
      while (last < due.size() && due[last].at_us == due[first].at_us) ++last;
      const int64_t target = t0 + static_cast<int64_t>(static_cast<double>(due[first].at_us) *
                                                       1000 * options_.time_scale);
      while (!stop_ && mono_ns() < target) sleep_until(std::min(target, mono_ns() + kStopCheckNs));
      if (stop_) return;
      std::vector<const LiveDirection*> changed;
      std::vector<std::pair<int64_t, std::string>> outcomes;  // applied time, error
      bool cut_or_restored = false;
      for (size_t i = first; i < last; ++i) {
        std::string error;
        try {
          if (due[i].node_event == NodeEvent::Kind::kCpus) {
            if (!options_.set_cpus) throw std::runtime_error("no compute groups");
            options_.set_cpus(nodes_[due[i].direction].node, due[i].cpus);
          } else if (due[i].node_event) {
            if (!faulter_) throw std::runtime_error("no node faulter");
            faulter_->apply(nodes_[due[i].direction].node, *due[i].node_event);
          } else {
            LiveDirection& d = directions_[due[i].direction];
            changer_.apply(d, due[i].change);
            changed.push_back(&d);
            cut_or_restored = cut_or_restored || due[i].change.down.has_value();
          }
        } catch (const std::exception& ex) {
          error = ex.what();
        }
        outcomes.emplace_back(mono_ns(), error);
      }
      for (size_t i = first; i < last; ++i) {
        const auto& [applied, error] = outcomes[i - first];
        const double scheduled_s = (target - t0) / 1e9, applied_s = (applied - t0) / 1e9;
        if (due[i].node_event) {
          const std::string state = due[i].node_event == NodeEvent::Kind::kCpus
                                        ? cpus_state(due[i].cpus)
                                        : node_row_state(*due[i].node_event);
          log << node_row(scheduled_s, applied_s, nodes_[due[i].direction].node, state, error);
        } else {
          log << direction_row(scheduled_s, applied_s, directions_[due[i].direction], error);
        }
      }
      log << std::flush;
      if (!changed.empty()) {
        try {
          record_current(options_.lab_dir, changed);
        } catch (const std::exception& ex) {
          std::fprintf(stderr, "testbed timeline: current.json: %s\n", ex.what());
        }
      }
      // The delay counts from the first cut or restore not yet converged; later ones join
      // that convergence, as an SPF's initial wait counts from the first event. Restarting
      // it at each would let links flapping faster than the delay hold routing off for ever.
      if (cut_or_restored && worker)
        worker->changed(std::chrono::microseconds(*rerouter_->convergence_us()));
      first = last;
    }
  }
  // The schedules' last change may still be converging.
  if (worker) worker->drain();
}

}  // namespace testbed
