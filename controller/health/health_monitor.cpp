#include "controller/health/health_monitor.h"

#include <algorithm>
#include <chrono>

#include "controller/health/sample_spacing.h"
#include "netns/process_stat.h"

namespace testbed {

HealthMonitor::HealthMonitor(std::unique_ptr<Kernel> kernel, std::string lab_dir,
                             std::vector<LiveDirection> directions, HealthThresholds thresholds,
                             Publish publish)
    : kernel_(std::move(kernel)),
      lab_dir_(std::move(lab_dir)),
      directions_(std::move(directions)),
      thresholds_(thresholds),
      publish_(std::move(publish)),
      meters_(directions_.size()),
      drops_start_(directions_.size()),
      drops_now_(directions_.size()),
      allowance_(read_cpu_allowance()),
      cpu_(allowance_.effective() / static_cast<double>(allowance_.cpus.size())) {
  for (const auto& d : directions_) {
    if (d.queue >= 0 &&
        std::find(delay_nodes_.begin(), delay_nodes_.end(), d.to) == delay_nodes_.end())
      delay_nodes_.push_back(d.to);
  }
}

HealthMonitor::~HealthMonitor() {
  if (thread_.joinable()) stop();
}

void HealthMonitor::start() {
  start_lines_ = query_delay_lines(lab_dir_, delay_nodes_, kQueryTimeoutMs);
  sample(0);
  drops_start_ = drops_now_;
  thread_ = std::thread([this] { loop(); });
}

std::chrono::milliseconds HealthMonitor::sample_period(std::chrono::nanoseconds took) {
  return spaced_by_cost(took, kMaxCostShare, std::chrono::milliseconds(kSamplePeriodMs),
                        std::chrono::milliseconds(kMaxSamplePeriodMs));
}

void HealthMonitor::loop() {
  using std::chrono::milliseconds;
  using std::chrono::steady_clock;
  static_assert(kSamplePeriodMs % kProbePeriodMs == 0, "a sample falls on a probe's tick");
  const auto t0 = steady_clock::now();
  auto next_probe = t0, next_sample = t0 + milliseconds(kSamplePeriodMs);
  auto next_publish = t0 + milliseconds(kPublishEveryMs);
  milliseconds period{kSamplePeriodMs};
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    next_probe += milliseconds(kProbePeriodMs);
    if (wake_.wait_until(lock, std::min(next_probe, next_sample), [this] { return stopping_; }))
      break;
    const auto now = steady_clock::now();
    if (now >= next_sample) {
      const auto cpu_before = thread_cpu();
      sample(std::chrono::duration<double>(now - t0).count());
      // On the 200 ms grid while a sample is cheap; spaced out from now when it is not.
      period = sample_period(thread_cpu() - cpu_before);
      longest_period_ = std::max(longest_period_, period);
      next_sample = period.count() == kSamplePeriodMs ? next_sample + period : now + period;
      if (next_sample < now) next_sample = now + period;  // a starved thread skips samples
      if (publish_ && now >= next_publish) {
        next_publish = now + milliseconds(kPublishEveryMs);
        lock.unlock();  // the delay-line round trips need not hold the meters
        const auto lines = query_delay_lines(lab_dir_, delay_nodes_, kQueryTimeoutMs);
        lock.lock();
        publish_(report(lines));
      }
    } else if (period.count() == kSamplePeriodMs) {
      probe();  // only while samples are cheap: a probe reads the backlogged directions again
    }
    if (next_probe < now) next_probe = now;  // a starved thread skips ticks, not bunches them
  }
}

void HealthMonitor::probe() {
  const ReadSnapshot snapshot(*kernel_);
  for (size_t i = 0; i < directions_.size(); ++i) {
    if (!meters_[i].backlogged_now()) continue;
    try {
      if (const auto s = kernel_->shaping(directions_[i].ns, directions_[i].dev))
        meters_[i].probe(s->backlog_bytes);
    } catch (const std::exception&) {
      // The lab is going down under us: the next sample says so.
    }
  }
}

void HealthMonitor::sample(double t_s) {
  const ReadSnapshot snapshot(*kernel_);
  for (size_t i = 0; i < directions_.size(); ++i) {
    const auto& d = directions_[i];
    std::optional<ShapingState> s;
    try {
      s = kernel_->shaping(d.ns, d.dev);
    } catch (const std::exception&) {
      // The lab is going down under us: no sample, and stop() still reports what it has.
    }
    if (!s) continue;
    meters_[i].add({t_s, s->sent_bytes, s->backlog_bytes, s->config.rate_bytes_per_s});
    drops_now_[i] = s->dropped_packets;
  }
  if (const auto cpu = read_proc_stat(allowance_.cpus)) {
    if (last_cpu_) cpu_.add(*last_cpu_, *cpu);
    last_cpu_ = cpu;
  }
  elapsed_s_ = t_s;
}

HealthReport HealthMonitor::report(const DelayLineSnapshot& end) const {
  HealthReport r;
  r.thresholds = thresholds_;
  r.duration_s = elapsed_s_;
  r.sample_period_s = std::chrono::duration<double>(longest_period_).count();
  r.cpu_saturated_share = cpu_.saturated_share();
  r.cpu_busy_p50 = cpu_.busy_quantile(0.5);
  r.cpu_busy_p90 = cpu_.busy_quantile(0.9);
  r.cpu_intervals = cpu_.intervals();
  r.cpu_scope = allowance_.describe();
  for (size_t i = 0; i < directions_.size(); ++i) {
    const auto& d = directions_[i];
    DirectionHealth h;
    h.from = d.from;
    h.to = d.to;
    h.link = d.link;
    h.shaper_drops = drops_now_[i] >= drops_start_[i] ? drops_now_[i] - drops_start_[i] : 0;
    h.rate_measured = meters_[i].observed_s() > 0;
    h.observed_s = meters_[i].observed_s();
    h.backlogged_s = meters_[i].backlogged_s();
    h.rate_judged = h.rate_measured && d.params.loss.value == 0;
    if (h.rate_measured) {
      h.rate_ratio = meters_[i].rate_ratio();
      h.mean_ratio = meters_[i].mean_ratio();
      h.sent_bytes = meters_[i].sent_bytes();
      h.peak_bytes_per_s = meters_[i].peak_bytes_per_s();
    }
    if (d.queue >= 0) {
      const auto q = static_cast<uint16_t>(d.queue);
      const auto e = end.find(d.to);
      if (e != end.end() && e->second.count(q)) {
        const DelayLineQueueStats& now = e->second.at(q);
        DelayLineQueueStats before;
        const auto s = start_lines_.find(d.to);
        if (s != start_lines_.end() && s->second.count(q)) before = s->second.at(q);
        h.lateness = now.lateness.since(before.lateness);
        h.emulator_lateness = now.emulator_lateness.since(before.emulator_lateness);
        h.delayed_packets = h.lateness.count();
        // Counters only grow while the delay line lives; a restarted one starts at zero.
        const auto grown = [](uint64_t a, uint64_t b) { return a >= b ? a - b : a; };
        h.nfqueue_dropped = grown(now.queue_dropped, before.queue_dropped) +
                            grown(now.user_dropped, before.user_dropped);
      }
    }
    r.directions.push_back(h);
  }
  return r;
}

HealthReport HealthMonitor::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  const auto end = query_delay_lines(lab_dir_, delay_nodes_, kQueryTimeoutMs);
  std::lock_guard lock(mutex_);
  return report(end);
}

}  // namespace testbed
