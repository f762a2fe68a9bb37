// The training jobs: seeded and repeatable, the single-process reference lowers the
// held-out loss, sparse-lr and lmf touch few keys with power-law frequencies, and the
// workers' additive updates really are one optimizer step (what makes BSP on shards exact).
#include "agent/jobs/job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "controller/training/loss_curve.h"

namespace testbed {
namespace {

JobConfig config(const std::string& name, double scale) {
  return JobConfig{name, 7, 3, scale};
}

TEST(Jobs, EveryJobIsSeededAndLearns) {
  for (const auto& [name, scale] : std::vector<std::pair<std::string, double>>{
           {"logreg", 1}, {"mf", 0.5}, {"sparse-lr", 0.05}, {"lmf", 0.1}}) {
    const auto a = make_job(config(name, scale), 1), b = make_job(config(name, scale), 1);
    std::vector<float> w(a->parameters());
    for (size_t k = 0; k < w.size(); ++k) w[k] = a->initial_value(static_cast<uint32_t>(k));
    EXPECT_EQ(a->update(0, w).values, b->update(0, w).values) << name;
    EXPECT_EQ(a->held_out_loss(w), b->held_out_loss(w)) << name;
    const ReferenceRun r = reference_run(config(name, scale), 30);
    ASSERT_EQ(r.held_out.size(), 31u);
    EXPECT_LT(r.held_out.back(), 0.95 * r.held_out.front()) << name << " did not learn";
  }
  EXPECT_THROW(make_job(config("lda", 1), 0), std::invalid_argument);
}

TEST(Jobs, SparseLrReadsFewKeysWithPowerLawFrequencies) {
  const auto job = make_job(config("sparse-lr", 1), 0);
  EXPECT_GE(job->parameters(), 1000000u);
  std::map<uint32_t, int> seen;
  for (uint64_t c = 0; c < 10; ++c) {
    const auto keys = job->keys_for(c);
    ASSERT_FALSE(keys.empty());
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
    EXPECT_LT(keys.size(), job->parameters() / 50) << "a batch reads a small part";
    for (uint32_t k : keys) ++seen[k];
  }
  // The most frequent keys are in nearly every batch; most keys in one only.
  int in_all = 0, in_one = 0;
  for (const auto& [k, n] : seen) {
    in_all += n == 10;
    in_one += n == 1;
  }
  EXPECT_GT(in_all, 10);
  EXPECT_GT(in_one, static_cast<int>(seen.size()) / 2);
  std::vector<float> w(job->parameters(), 0.0f);
  EXPECT_EQ(job->update(3, w).keys, job->keys_for(3));
}

TEST(Jobs, LmfReadsWholeRowsUsersOnOneWorkerItemsOnAny) {
  const JobConfig c{"lmf", 7, 5, 1};
  const auto w0 = make_job(c, 0), w1 = make_job(c, 1);
  EXPECT_EQ(w0->parameters(), size_t{1} << 20) << "4 MiB, as sparse-lr x1";
  constexpr uint32_t kRank = 16, kItemKeys = 16384 * kRank;  // item rows come first
  std::set<uint32_t> users0, users1, items0, items1;
  std::map<uint32_t, int> batches_of_row;
  for (uint64_t clock = 0; clock < 10; ++clock) {
    const auto keys = w0->keys_for(clock);
    ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    EXPECT_LT(keys.size(), w0->parameters() / 20) << "a batch reads a small part";
    ASSERT_EQ(keys.size() % kRank, 0u);
    for (size_t i = 0; i < keys.size(); i += kRank) {
      EXPECT_EQ(keys[i] % kRank, 0u);
      EXPECT_EQ(keys[i + kRank - 1], keys[i] + kRank - 1) << "a row is read whole";
      ++batches_of_row[keys[i]];
      (keys[i] < kItemKeys ? items0 : users0).insert(keys[i]);
    }
    for (uint32_t k : w1->keys_for(clock)) (k < kItemKeys ? items1 : users1).insert(k);
  }
  for (uint32_t u : users0) EXPECT_EQ(users1.count(u), 0u) << "user row " << u << " on both";
  size_t shared_items = 0;
  for (uint32_t i : items0) shared_items += items1.count(i);
  EXPECT_GT(shared_items, items0.size() / 10);
  // Skewed as MovieLens: the head rows are in every batch, most rows in one.
  int in_all = 0, in_one = 0;
  for (const auto& [row, n] : batches_of_row) {
    in_all += n == 10;
    in_one += n == 1;
  }
  EXPECT_GE(in_all, 5);
  EXPECT_GT(in_one, static_cast<int>(batches_of_row.size()) / 3);
}

TEST(Jobs, ShardedBspIsTheReferenceStep) {
  // Two workers' updates added to the initial parameters give the reference's first step.
  const JobConfig c{"mf", 3, 2, 0.2};
  const auto w0 = make_job(c, 0), w1 = make_job(c, 1);
  std::vector<float> w(w0->parameters());
  for (size_t k = 0; k < w.size(); ++k) w[k] = w0->initial_value(static_cast<uint32_t>(k));
  std::vector<double> sum(w.size(), 0.0);
  add_update(w0->update(0, w), sum);
  add_update(w1->update(0, w), sum);
  const ReferenceRun r = reference_run(c, 1);
  size_t moved = 0;
  for (size_t k = 0; k < w.size(); ++k) {
    EXPECT_EQ(r.parameters[k], w[k] + static_cast<float>(sum[k])) << k;
    moved += r.parameters[k] != w[k];
  }
  EXPECT_GT(moved, 0u);
}

TEST(LossCurve, DefinedOnceEveryWorkerReportedThenTheMeanOfTheLatest) {
  LossCurve c(2);
  c.add(0, 0.1, 1.0);
  EXPECT_FALSE(c.current());
  c.add(1, 0.2, 0.8);
  EXPECT_DOUBLE_EQ(*c.current(), 0.9);
  c.add(0, 1.0, 0.4);
  c.add(1, 1.5, 0.2);
  ASSERT_EQ(c.points().size(), 3u);
  EXPECT_DOUBLE_EQ(*c.time_to(0.61), 1.0);
  EXPECT_DOUBLE_EQ(*c.time_to(0.31), 1.5);
  EXPECT_FALSE(c.time_to(0.1));
  EXPECT_EQ(c.to_json().size(), 3u);
  // A worker that left an elastic run: the mean is over those left, and what it sends
  // after no longer counts.
  c.set_counted(1, false);
  EXPECT_DOUBLE_EQ(*c.current(), 0.4);
  c.add(1, 2.0, 9.0);
  EXPECT_DOUBLE_EQ(*c.current(), 0.4);
  c.set_counted(0, false);
  EXPECT_FALSE(c.current());
  c.set_counted(1, true);  // it joins again: its next evaluation counts
  c.add(1, 3.0, 0.5);
  EXPECT_DOUBLE_EQ(*c.current(), 0.5);
}

}  // namespace
}  // namespace testbed
