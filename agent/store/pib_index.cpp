#include "agent/store/pib_index.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace testbed {
namespace {

struct Blocks {
  std::unordered_map<uint32_t, uint32_t> of;  // indexed key -> block
  std::vector<std::vector<uint32_t>> keys;    // block -> keys (empty once merged away)
};

// The blocks each batch touches, sorted and unique (unindexed keys left out).
std::vector<std::vector<uint32_t>> touched(const std::vector<std::vector<uint32_t>>& batches,
                                           const Blocks& b) {
  std::vector<std::vector<uint32_t>> out(batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    for (uint32_t key : batches[i]) {
      if (const auto it = b.of.find(key); it != b.of.end()) out[i].push_back(it->second);
    }
    std::sort(out[i].begin(), out[i].end());
    out[i].erase(std::unique(out[i].begin(), out[i].end()), out[i].end());
  }
  return out;
}

double cost(uint64_t accesses, size_t size, const IndexOptions& o) {
  return static_cast<double>(accesses) * (o.seek_s + static_cast<double>(size) * o.per_parameter_s);
}

struct Candidate {
  double gain;
  uint32_t i, j;
};

// One round: count, rank, merge. Returns the merges made.
uint64_t merge_round(const std::vector<std::vector<uint32_t>>& batches, Blocks& b,
                     const IndexOptions& o) {
  const auto per_batch = touched(batches, b);
  std::vector<uint64_t> acc(b.keys.size(), 0);
  std::unordered_map<uint64_t, uint32_t> both;  // (i << 32 | j), i < j -> C_ij
  for (const auto& t : per_batch) {
    for (size_t x = 0; x < t.size(); ++x) {
      ++acc[t[x]];
      for (size_t y = x + 1; y < t.size(); ++y) ++both[(uint64_t{t[x]} << 32) | t[y]];
    }
  }
  std::vector<Candidate> ranked;
  for (const auto& [pair, c] : both) {
    const auto i = static_cast<uint32_t>(pair >> 32), j = static_cast<uint32_t>(pair);
    const size_t si = b.keys[i].size(), sj = b.keys[j].size();
    const double gain =
        cost(acc[i], si, o) + cost(acc[j], sj, o) - cost(acc[i] + acc[j] - c, si + sj, o);
    if (gain > o.min_gain_s) ranked.push_back({gain, i, j});
  }
  // Ties broken by block ids, so the index is the same on every run.
  std::sort(ranked.begin(), ranked.end(), [](const Candidate& x, const Candidate& y) {
    return x.gain != y.gain ? x.gain > y.gain : std::tie(x.i, x.j) < std::tie(y.i, y.j);
  });
  std::vector<bool> merged(b.keys.size(), false);
  uint64_t merges = 0;
  for (const auto& c : ranked) {
    if (merges == static_cast<uint64_t>(std::max(1, o.top_k))) break;
    if (merged[c.i] || merged[c.j]) continue;
    merged[c.i] = merged[c.j] = true;
    for (uint32_t key : b.keys[c.j]) b.of[key] = c.i;
    b.keys[c.i].insert(b.keys[c.i].end(), b.keys[c.j].begin(), b.keys[c.j].end());
    b.keys[c.j].clear();
    ++merges;
  }
  return merges;
}

}  // namespace

double index_cost(const std::vector<std::vector<uint32_t>>& batches,
                  const std::vector<std::vector<uint32_t>>& pibs, const IndexOptions& options) {
  std::unordered_map<uint32_t, uint32_t> pib_of;
  for (uint32_t p = 0; p < pibs.size(); ++p)
    for (uint32_t key : pibs[p]) pib_of[key] = p;
  std::vector<uint64_t> acc(pibs.size(), 0);
  double total = 0;
  for (const auto& batch : batches) {
    std::vector<uint32_t> hit;
    for (uint32_t key : batch) {
      if (const auto it = pib_of.find(key); it != pib_of.end()) {
        hit.push_back(it->second);
      } else {
        total += cost(1, 1, options);  // a key alone
      }
    }
    std::sort(hit.begin(), hit.end());
    hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
    for (uint32_t p : hit) total += cost(1, pibs[p].size(), options);
  }
  return total;
}

IndexResult build_index(const std::vector<std::vector<uint32_t>>& batches,
                        const IndexOptions& options) {
  std::unordered_map<uint32_t, uint32_t> frequency;
  for (const auto& batch : batches)
    for (uint32_t key : batch) ++frequency[key];
  Blocks b;
  std::vector<uint32_t> kept;
  for (const auto& [key, n] : frequency)
    if (n >= options.prune_below) kept.push_back(key);
  std::sort(kept.begin(), kept.end());
  for (uint32_t key : kept) {
    b.of[key] = static_cast<uint32_t>(b.keys.size());
    b.keys.push_back({key});
  }
  IndexResult r;
  r.indexed_keys = kept.size();
  r.cost_before_s = index_cost(batches, {}, options);
  for (uint64_t merged; (merged = merge_round(batches, b, options)) > 0;) {
    ++r.rounds;
    r.merges += merged;
  }
  ++r.rounds;  // the last round found nothing worth merging
  for (auto& keys : b.keys) {
    if (keys.size() < 2) continue;
    std::sort(keys.begin(), keys.end());
    r.pibs.push_back(std::move(keys));
  }
  std::sort(r.pibs.begin(), r.pibs.end());
  r.cost_after_s = index_cost(batches, r.pibs, options);
  return r;
}

}  // namespace testbed
