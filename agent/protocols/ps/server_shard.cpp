#include "agent/protocols/ps/server_shard.h"

#include <algorithm>
#include <stdexcept>

namespace testbed {

ServerShard::ServerShard(KeyRange range, int workers, Consistency model, std::vector<float> initial)
    : ServerShard(range, workers, model, std::make_unique<MemoryShardValues>(std::move(initial))) {}

ServerShard::ServerShard(KeyRange range, int workers, Consistency model,
                         std::unique_ptr<ShardValues> values)
    : range_(range),
      workers_(workers),
      model_(model),
      values_(std::move(values)),
      clock_(static_cast<size_t>(workers), 0),
      applied_ns_(static_cast<size_t>(workers)) {
  if (values_->size() != range_.size()) throw std::invalid_argument("initial values != range");
  if (model_.kind == Consistency::Kind::kBsp) {
    bsp_sum_.assign(values_->size(), 0.0);
    bsp_touched_.assign(values_->size(), 0);
  }
  if (model_.kind == Consistency::Kind::kWsp) grants_.resize(static_cast<size_t>(workers));
}

uint64_t ServerShard::min_clock() const {
  return *std::min_element(clock_.begin(), clock_.end());
}

void ServerShard::add(bool dense, const std::vector<uint32_t>& keys,
                      const std::vector<float>& values) {
  std::vector<uint32_t> offsets(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    offsets[i] = dense ? static_cast<uint32_t>(i) : keys[i] - range_.begin;
  if (model_.kind != Consistency::Kind::kBsp) return values_->add(offsets, values);
  for (size_t i = 0; i < values.size(); ++i) {
    bsp_sum_[offsets[i]] += values[i];
    if (!bsp_touched_[offsets[i]]) {
      bsp_touched_[offsets[i]] = 1;
      bsp_touched_list_.push_back(offsets[i]);
    }
  }
}

std::vector<PullReply> ServerShard::push(int worker, uint64_t clock, uint64_t read_min_clock,
                                         bool dense, const std::vector<uint32_t>& keys,
                                         const std::vector<float>& values, int64_t now_ns) {
  auto& c = clock_.at(static_cast<size_t>(worker));
  if (clock != c) {
    throw std::runtime_error("worker " + std::to_string(worker) + " pushed clock " +
                             std::to_string(clock) + ", expected " + std::to_string(c));
  }
  if (dense ? values.size() != values_->size() : keys.size() != values.size())
    throw std::runtime_error("a push of the wrong size");
  for (uint32_t k : keys)
    if (!range_.contains(k)) throw std::runtime_error("a push for a key outside the shard");
  add(dense, keys, values);
  ++c;
  ++staleness_[clock >= read_min_clock ? clock - read_min_clock : 0];
  auto& stamps = applied_ns_[static_cast<size_t>(worker)];
  if (model_.kind != Consistency::Kind::kBsp) {
    ++applied_;
    stamps.push_back(now_ns);
    return release();
  }
  bsp_waiting_.emplace_back(worker, clock);
  if (static_cast<int>(bsp_waiting_.size()) < workers_) return {};
  apply_clock_sum();
  for (const auto& [w, cl] : bsp_waiting_) applied_ns_[static_cast<size_t>(w)].push_back(now_ns);
  applied_ += bsp_waiting_.size();
  bsp_waiting_.clear();
  return release();
}

// The clock's last update is in: all of them take effect now, as one sum (a key no update
// touched would only have 0 added).
void ServerShard::apply_clock_sum() {
  std::sort(bsp_touched_list_.begin(), bsp_touched_list_.end());
  std::vector<float> sums;
  sums.reserve(bsp_touched_list_.size());
  for (uint32_t at : bsp_touched_list_) {
    sums.push_back(static_cast<float>(bsp_sum_[at]));
    bsp_sum_[at] = 0;
    bsp_touched_[at] = 0;
  }
  values_->add(bsp_touched_list_, sums);
  bsp_touched_list_.clear();
}

std::vector<PullReply> ServerShard::push_ordered(uint64_t places, bool dense,
                                                 const std::vector<uint32_t>& keys,
                                                 const std::vector<float>& values) {
  if (model_.kind != Consistency::Kind::kBsp && model_.kind != Consistency::Kind::kAsync)
    throw std::runtime_error("ordered pushes are for an asynchronous or a BSP server");
  if (dense ? values.size() != values_->size() : keys.size() != values.size())
    throw std::runtime_error("a push of the wrong size");
  for (uint32_t k : keys)
    if (!range_.contains(k)) throw std::runtime_error("a push for a key outside the shard");
  add(dense, keys, values);
  if (model_.kind != Consistency::Kind::kBsp) {
    applied_ += places;
    return release();
  }
  // MLfabric-S: nothing is dropped and no worker computes clock c+1 before clock c is
  // applied, so places W*c .. W*c+W-1 are clock c's updates, one by one or summed.
  bsp_places_ += places;
  if (bsp_places_ < static_cast<uint64_t>(workers_)) return {};
  if (bsp_places_ > static_cast<uint64_t>(workers_))
    throw std::runtime_error("an ordered sum spans two clocks of a synchronous server");
  apply_clock_sum();
  applied_ += bsp_places_;
  bsp_places_ = 0;
  for (auto& c : clock_) ++c;  // every worker's update of the clock is in
  return release();
}

PullReply ServerShard::answer(const Pending& p) {
  PullReply r{p.worker, p.clock, min_clock(), p.dense, false, p.keys, {}};
  if (p.dense) {
    r.values = values_->read_all();
  } else {
    std::vector<uint32_t> offsets;
    offsets.reserve(p.keys.size());
    for (uint32_t k : p.keys) offsets.push_back(k - range_.begin);
    r.values = values_->read(offsets);
  }
  return r;
}

bool ServerShard::may_answer(const Pending& p) const {
  if (min_clock() < model_.required_min_clock(p.clock)) return false;
  if (model_.kind != Consistency::Kind::kWsp || p.clock == 0) return true;  // clock 0: no wait
  const auto& g = grants_[static_cast<size_t>(p.worker)];
  if (!g || g->clock != p.clock) return false;
  for (size_t l = 0; l < clock_.size(); ++l)
    if (clock_[l] < g->need[l]) return false;
  return true;
}

std::vector<PullReply> ServerShard::grant(int worker, uint64_t clock,
                                          const std::vector<uint64_t>& need) {
  if (model_.kind != Consistency::Kind::kWsp) throw std::invalid_argument("a grant without wsp");
  if (worker < 0 || worker >= workers_ || need.size() != clock_.size())
    throw std::invalid_argument("a grant for worker " + std::to_string(worker) + " naming " +
                                std::to_string(need.size()) + " workers' pushes");
  grants_[static_cast<size_t>(worker)] = Grant{clock, need};
  return release();
}

std::vector<PullReply> ServerShard::pull(int worker, uint64_t clock, bool dense,
                                         std::vector<uint32_t> keys, bool latest) {
  for (uint32_t k : keys)
    if (!range_.contains(k)) throw std::runtime_error("a pull for a key outside the shard");
  Pending p{worker, clock, dense, std::move(keys)};
  if (latest) {
    PullReply r = answer(p);
    r.latest = true;
    return {r};
  }
  if (may_answer(p)) return {answer(p)};
  pending_.push_back(std::move(p));
  return {};
}

std::vector<PullReply> ServerShard::release() {
  std::vector<PullReply> out;
  std::vector<char> go(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) go[i] = may_answer(pending_[i]);
  size_t i = 0;
  std::erase_if(pending_, [&](const Pending& p) {
    if (!go[i++]) return false;
    out.push_back(answer(p));
    if (!grants_.empty()) grants_[static_cast<size_t>(p.worker)].reset();
    return true;
  });
  return out;
}

}  // namespace testbed
