// The all-reduce algorithms (RR-Sync's ring, Tr-Sync's binary tree), pure: W workers pass
// messages through a pool delivered in a seeded random order, as the van may deliver them,
// and each must end with the sum of every update; what each link carries is counted.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "agent/protocols/allreduce/all_reduce.h"
#include "agent/protocols/allreduce/ring_allreduce.h"
#include "agent/protocols/allreduce/tree_allreduce.h"

namespace testbed {
namespace {

struct Traffic {
  std::map<std::pair<int, int>, size_t> values;  // (from, to) -> values carried
  size_t messages = 0;
};

float update_value(int rank, size_t k) {
  return static_cast<float>((rank + 1) * 1000 + static_cast<int>(k));
}

// Runs one clock; `late` (if >= 0) begins only once nothing else can move.
Traffic run_clock(const std::string& algorithm, int workers, size_t values, uint64_t seed,
                  std::vector<std::unique_ptr<AllReduce>>& all, int late = -1,
                  size_t* moved_before_late = nullptr) {
  struct InFlight {
    int from;
    AllReduceMessage m;
  };
  std::vector<InFlight> pool;
  Traffic t;
  all.clear();
  for (int r = 0; r < workers; ++r) all.push_back(make_all_reduce(algorithm, values, workers, r));
  const auto post = [&](int from, std::vector<AllReduceMessage> out) {
    for (auto& m : out) {
      t.values[{from, m.to}] += m.values.size();
      ++t.messages;
      pool.push_back({from, std::move(m)});
    }
  };
  std::vector<char> begun(static_cast<size_t>(workers), 0);
  const auto begin = [&](int r) {
    std::vector<float> u(values);
    for (size_t k = 0; k < values; ++k) u[k] = update_value(r, k);
    begun[static_cast<size_t>(r)] = 1;
    post(r, all[static_cast<size_t>(r)]->begin(std::move(u)));
  };
  for (int r = 0; r < workers; ++r)
    if (r != late) begin(r);
  std::mt19937_64 rng(seed);
  // A message to a worker that has not begun waits, as the protocol holds it.
  const auto deliverable = [&] {
    std::vector<size_t> ok;
    for (size_t i = 0; i < pool.size(); ++i)
      if (begun[static_cast<size_t>(pool[i].m.to)]) ok.push_back(i);
    return ok;
  };
  size_t delivered = 0;
  for (;;) {
    auto ok = deliverable();
    if (ok.empty()) {
      if (late >= 0 && !begun[static_cast<size_t>(late)]) {
        if (moved_before_late) *moved_before_late = delivered;
        begin(late);
        continue;
      }
      break;
    }
    const size_t pick = ok[std::uniform_int_distribution<size_t>(0, ok.size() - 1)(rng)];
    InFlight f = std::move(pool[pick]);
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(pick));
    ++delivered;
    post(f.m.to,
         all[static_cast<size_t>(f.m.to)]->incoming(f.from, f.m.tag, std::move(f.m.values)));
  }
  EXPECT_TRUE(pool.empty());
  return t;
}

void expect_sums(const std::vector<std::unique_ptr<AllReduce>>& all, int workers, size_t values,
                 const std::string& what) {
  for (size_t r = 0; r < all.size(); ++r) {
    ASSERT_TRUE(all[r]->done()) << what << ": worker " << r;
    for (size_t k = 0; k < values; ++k) {
      double expected = 0;
      for (int w = 0; w < workers; ++w) expected += update_value(w, k);
      ASSERT_DOUBLE_EQ(all[r]->sum()[k], expected) << what << ": worker " << r << ", value " << k;
    }
  }
}

TEST(AllReduce, EveryWorkerEndsWithTheSumWhateverTheDeliveryOrder) {
  const size_t values = 103;  // not a multiple of the workers: the ring's last segment is longer
  for (const std::string algorithm : {"ring", "tree"}) {
    for (int workers : {1, 2, 3, 5, 8}) {
      for (uint64_t seed : {1, 2, 3}) {
        std::vector<std::unique_ptr<AllReduce>> all;
        run_clock(algorithm, workers, values, seed, all);
        expect_sums(all, workers, values, algorithm + " of " + std::to_string(workers));
      }
    }
  }
}

TEST(AllReduce, TheRingSpreadsTrafficTheTreeSendsWholeModelsOverItsEdges) {
  const size_t values = 800;
  const int workers = 8;
  std::vector<std::unique_ptr<AllReduce>> all;
  const Traffic ring = run_clock("ring", workers, values, 1, all);
  // Each worker sends 2(W-1) segments of values/W to the next one, and nothing else.
  EXPECT_EQ(ring.values.size(), static_cast<size_t>(workers));
  for (const auto& [link, carried] : ring.values) {
    EXPECT_EQ(link.second, (link.first + 1) % workers);
    EXPECT_EQ(carried, 2 * (workers - 1) * values / workers);
  }
  const Traffic tree = run_clock("tree", workers, values, 1, all);
  // Each of the W-1 tree edges carries the whole model up and the whole sum down.
  EXPECT_EQ(tree.values.size(), static_cast<size_t>(2 * (workers - 1)));
  for (const auto& [link, carried] : tree.values) {
    EXPECT_EQ(carried, values) << link.first << "->" << link.second;
    const auto [child, parent] =
        link.first > link.second ? link : std::pair{link.second, link.first};
    EXPECT_EQ((child - 1) / 2, parent) << "only parent and child talk";
  }
  EXPECT_EQ(tree.messages, static_cast<size_t>(2 * (workers - 1)));
}

TEST(AllReduce, TheTreeSumsSubtreesWhileAStragglerComputes) {
  const size_t values = 16;
  const int workers = 8, late = 7;  // a leaf under rank 3
  std::vector<std::unique_ptr<AllReduce>> all;
  size_t moved = 0;
  run_clock("tree", workers, values, 4, all, late, &moved);
  expect_sums(all, workers, values, "tree with a straggler");
  // Leaves 4, 5 and 6 send up, and rank 2, its subtree summed, sends on to the root: four
  // messages arrive before rank 7 begins; ranks 3, 1 and 0 wait for it.
  EXPECT_EQ(moved, 4u);
}

TEST(AllReduce, UnknownAlgorithmsAndUnexpectedMessagesAreRefused) {
  EXPECT_THROW(make_all_reduce("butterfly", 4, 2, 0), std::invalid_argument);
  EXPECT_THROW(make_all_reduce("tree", 4, 2, 2), std::invalid_argument);
  TreeAllReduce tree(4, 3, 1);  // a leaf: rank 0 is its parent
  tree.begin({1, 1, 1, 1});
  EXPECT_THROW(tree.incoming(2, TreeAllReduce::kUp, {1, 1, 1, 1}), std::runtime_error)
      << "rank 2 is no child of rank 1";
  RingAllReduce ring(4, 3, 1);
  ring.begin({1, 1, 1, 1});
  EXPECT_THROW(ring.incoming(2, 0, {1}), std::runtime_error)
      << "rank 2 is the next, not the previous";
}

}  // namespace
}  // namespace testbed
