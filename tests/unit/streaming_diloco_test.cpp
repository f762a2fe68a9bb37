// Streaming DiLoCo's parts, pure (agent/protocols/streaming_diloco/, the wire's value
// encodings in agent/transport/value_codec.h): the encodings' round trips and refusals,
// the all-reduces leaving every worker the same sum when values travel in fewer bits, the
// fragments' schedule, the policy both ends share, and the algorithm run in memory: with
// one fragment, no overlap and no mixing it is DiLoCo exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "agent/contracts/message_fields.h"
#include "agent/jobs/job.h"
#include "agent/protocols/allreduce/all_reduce.h"
#include "agent/protocols/diloco/diloco_rounds.h"
#include "agent/protocols/diloco/outer_optimizer.h"
#include "agent/protocols/streaming_diloco/fragment_schedule.h"
#include "agent/protocols/streaming_diloco/streaming_policy.h"
#include "agent/protocols/streaming_diloco/streaming_rounds.h"
#include "agent/transport/value_codec.h"
#include "controller/options/run_options.h"
#include "controller/training/strategy_registry.h"
#include "controller/training/streaming_diloco/streaming_options.h"

namespace testbed {
namespace {

std::vector<float> decoded(const ValueCodec& c, const std::vector<float>& v) {
  const std::vector<uint8_t> bytes = c.encode(v);
  return c.decode(bytes.data(), bytes.size());
}

TEST(ValueCodec, Fp32IsExactBf16HalvesAndFp4QuartersTheBytes) {
  const std::vector<float> v = {1.0f, -0.3f, 2.5e-3f, 0.0f, 123.456f};
  const ValueCodec& fp32 = *find_value_codec("fp32");
  const ValueCodec& bf16 = *find_value_codec("bf16");
  const ValueCodec& fp4 = *find_value_codec("fp4");
  EXPECT_EQ(decoded(fp32, v), v);
  EXPECT_EQ(fp32.encode(v).size(), 20u);
  EXPECT_EQ(bf16.encode(v).size(), 10u);
  EXPECT_EQ(fp4.encode(v).size(), 8u + 3u);  // the count and the scale, then 5 half-bytes
  const auto b = decoded(bf16, v);
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(b[i], v[i], std::fabs(v[i]) / 256) << i;  // 8 bits of mantissa
  EXPECT_EQ(find_value_codec("int3"), nullptr);
  EXPECT_EQ(value_codec_by_id(2), &fp4);
}

TEST(ValueCodec, Fp4IsE3M0ScaledByTheLargestMagnitude) {
  const ValueCodec& fp4 = *find_value_codec("fp4");
  // The levels are exact: scale x 2^-6 .. scale x 2^0, and zero.
  const float s = 3.0f;
  std::vector<float> levels = {0.0f};
  for (int k = 0; k <= 6; ++k) levels.push_back(std::ldexp(s, -k));
  levels.push_back(-s / 4);
  EXPECT_EQ(decoded(fp4, levels), levels);
  // Between levels, the nearer one; below half the smallest, zero.
  const auto d = decoded(fp4, {4.0f, 1.4f, 1.6f, -0.9f, 0.01f});
  EXPECT_FLOAT_EQ(d[0], 4.0f);
  EXPECT_FLOAT_EQ(d[1], 1.0f);  // 1.4 is nearer 1 than 2
  EXPECT_FLOAT_EQ(d[2], 2.0f);  // 1.6 nearer 2
  EXPECT_FLOAT_EQ(d[3], -1.0f);
  EXPECT_FLOAT_EQ(d[4], 0.0f);  // under 4 x 2^-7
  // Rounding twice is rounding once: a sum passed on around a ring is not worn down.
  EXPECT_EQ(decoded(fp4, d), d);
  std::vector<float> r = {0.7f, -0.2f};
  round_to(fp4, r);
  EXPECT_EQ(r, decoded(fp4, {0.7f, -0.2f}));
}

TEST(ValueCodec, APayloadNoEncodingMakesIsRefused) {
  const ValueCodec& fp4 = *find_value_codec("fp4");
  const ValueCodec& bf16 = *find_value_codec("bf16");
  std::vector<uint8_t> p = fp4.encode({1, 2, 3});
  EXPECT_THROW(fp4.decode(p.data(), p.size() - 1), std::runtime_error);  // a value short
  EXPECT_THROW(fp4.decode(p.data(), 3), std::runtime_error);             // no head
  const float nan = std::nanf("");
  std::memcpy(p.data() + 4, &nan, sizeof nan);
  EXPECT_THROW(fp4.decode(p.data(), p.size()), std::runtime_error);  // a scale no one sends
  const std::vector<uint8_t> odd(3, 0);
  EXPECT_THROW(bf16.decode(odd.data(), odd.size()), std::runtime_error);
}

// One all-reduce among `workers` with the values in `codec`, messages delivered in a
// seeded random order; every worker's sum.
std::vector<std::vector<float>> reduce_encoded(const std::string& algorithm, int workers,
                                               const ValueCodec& codec, size_t values) {
  struct InFlight {
    int from;
    AllReduceMessage m;
  };
  std::vector<std::unique_ptr<AllReduce>> all;
  std::vector<InFlight> pool;
  std::mt19937 rng(7);
  std::normal_distribution<float> value(0, 1);
  for (int r = 0; r < workers; ++r) {
    all.push_back(make_all_reduce(algorithm, values, workers, r));
    all.back()->set_encoding(&codec);
  }
  for (int r = 0; r < workers; ++r) {
    std::vector<float> u(values);
    for (auto& x : u) x = value(rng);
    for (auto& m : all[static_cast<size_t>(r)]->begin(std::move(u))) pool.push_back({r, m});
  }
  while (!pool.empty()) {
    const size_t i = std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng);
    InFlight f = std::move(pool[i]);
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
    // What the receiver gets is what the wire decodes.
    std::vector<float> got = decoded(codec, f.m.values);
    EXPECT_EQ(got, f.m.values) << "a worker sent values it had not rounded";
    for (auto& m : all[static_cast<size_t>(f.m.to)]->incoming(f.from, f.m.tag, std::move(got)))
      pool.push_back({f.m.to, m});
  }
  std::vector<std::vector<float>> sums;
  for (const auto& a : all) {
    EXPECT_TRUE(a->done());
    sums.push_back(a->sum());
  }
  return sums;
}

TEST(ValueCodec, EveryWorkerEndsWithTheSameSumInFewerBits) {
  for (const std::string algorithm : {"ring", "tree"}) {
    for (const std::string name : {"bf16", "fp4", "int8"}) {
      // 4000 values: int8's segments take more than 256 distinct values, so they are binned.
      for (const size_t values : {37, 4000}) {
        const auto sums = reduce_encoded(algorithm, 4, *find_value_codec(name), values);
        for (size_t w = 1; w < sums.size(); ++w)
          EXPECT_EQ(sums[w], sums[0])
              << algorithm << " " << name << " " << values << " worker " << w;
      }
    }
  }
}

TEST(FragmentSchedule, FragmentsTakeTurnsHOverPStepsApart) {
  const FragmentSchedule s(10, 2);
  EXPECT_EQ(s.due_after(0), std::nullopt);
  for (uint64_t t : {1, 4, 6, 9, 11}) EXPECT_EQ(s.due_after(t), std::nullopt) << t;
  EXPECT_EQ(s.due_after(5), 1);
  EXPECT_EQ(s.due_after(10), 0);
  EXPECT_EQ(s.due_after(15), 1);
  EXPECT_EQ(s.due_after(20), 0);
  EXPECT_EQ(s.least_gap(), 5);
  EXPECT_EQ(s.bounds(0, 11), std::make_pair(size_t{0}, size_t{5}));
  EXPECT_EQ(s.bounds(1, 11), std::make_pair(size_t{5}, size_t{11}));  // the remainder
  // H = 10 over 3: offsets 0, 3, 6; gaps 3, 3 and 4 back to fragment 0.
  const FragmentSchedule three(10, 3);
  EXPECT_EQ(three.offset(2), 6);
  EXPECT_EQ(three.least_gap(), 3);
  EXPECT_EQ(three.due_after(16), 2);
  // One fragment is DiLoCo's schedule.
  const FragmentSchedule one(4, 1);
  EXPECT_EQ(one.due_after(4), 0);
  EXPECT_EQ(one.due_after(3), std::nullopt);
  EXPECT_THROW(FragmentSchedule(2, 3), std::invalid_argument);
}

std::string refusal(const nlohmann::json& j) {
  try {
    streaming_policy_from_json(j);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(StreamingDiloco, TheControllersTableGivesTheAgentsDefaultsAndRefusesByField) {
  EXPECT_EQ(streaming_policy_from_json(option_values(streaming_diloco_options(), {})),
            StreamingPolicy{});
  StreamingPolicy p;
  p.fragments = 5;
  p.diloco.wire = "fp4";
  p.diloco.inner_steps = 20;
  EXPECT_EQ(streaming_policy_from_json(to_json(p)), p);
  nlohmann::json j = to_json(StreamingPolicy{});  // H 10, P 2: syncs 5 steps apart
  j["overlap"] = 5;
  EXPECT_NE(refusal(j).find("overlap"), std::string::npos) << refusal(j);
  j = to_json(StreamingPolicy{});
  j["fragments"] = 11;  // more fragments than H
  EXPECT_NE(refusal(j).find("fragments"), std::string::npos);
  j = to_json(StreamingPolicy{});
  j["wire"] = "int3";
  EXPECT_NE(refusal(j).find("wire"), std::string::npos);
  j = to_json(StreamingPolicy{});
  j["inner_steps"] = 0;  // DiLoCo's field, checked as DiLoCo checks it
  EXPECT_NE(refusal(j).find("inner_steps"), std::string::npos);
  j = to_json(StreamingPolicy{});
  j["extra"] = 1;
  EXPECT_NE(refusal(j).find("extra"), std::string::npos);
}

TEST(StreamingDiloco, ItTakesDilocosOptionsAndItsOwnWhichDilocoRefuses) {
  CommandLine cli;
  cli.options = {{"strategy", "streaming-diloco"},
                 {"diloco-h", "6"},
                 {"streaming-fragments", "3"},
                 {"streaming-wire", "fp4"}};
  const TrainOptions o = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_EQ(o.policy["inner_steps"], 6);
  EXPECT_EQ(o.policy["fragments"], 3);
  EXPECT_EQ(o.policy["wire"], "fp4");
  EXPECT_EQ(o.policy["overlap"], 1);  // the default
  CommandLine diloco;
  diloco.options = {{"strategy", "diloco"}, {"streaming-wire", "fp4"}};
  try {
    resolve_train_options(diloco, nlohmann::json::object());
    ADD_FAILURE() << "diloco took --streaming-wire";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--streaming-wire is for streaming-diloco, not diloco");
  }
}

// Runs `hooks` for `clocks` clocks on one worker (a sum is its own values), applying each
// reduction before the clock it names; the evaluated model at the end.
std::vector<float> run_one_worker(RoundHooks& hooks, const nlohmann::json& policy, int clocks) {
  TrainingSetup s;
  s.policy = policy;
  hooks.configure(s);
  auto job = make_job(JobConfig{.name = "logreg", .seed = 3, .workers = 1}, 0);
  std::vector<float> initial(job->parameters());
  for (size_t k = 0; k < initial.size(); ++k)
    initial[k] = job->initial_value(static_cast<uint32_t>(k));
  hooks.start(initial, 1);
  std::optional<Reduction> pending;
  for (int c = 0; c < clocks; ++c) {
    if (pending && static_cast<uint64_t>(c) >= pending->apply_before) {
      hooks.reduced(pending->values);
      pending.reset();
    }
    hooks.step(static_cast<uint64_t>(c), job->update(static_cast<uint64_t>(c), hooks.working()));
    if (auto r = hooks.after_compute(static_cast<uint64_t>(c), c + 1 == clocks)) pending = r;
  }
  if (pending) hooks.reduced(pending->values);
  return hooks.evaluated();
}

TEST(StreamingDiloco, OneFragmentNoOverlapNoMixingIsDiloco) {
  StreamingPolicy p;
  p.diloco.inner_steps = 5;
  p.fragments = 1;
  p.overlap = 0;
  p.mixing = 0;
  StreamingRounds streaming;
  DilocoRounds diloco;
  const auto a = run_one_worker(streaming, to_json(p), 20);
  const auto b = run_one_worker(diloco, to_json(p.diloco), 20);
  EXPECT_EQ(a, b);
}

TEST(StreamingDiloco, FragmentsAndOverlapWithMixingStillTrainTheJob) {
  auto job = make_job(JobConfig{.name = "logreg", .seed = 3, .workers = 1}, 0);
  std::vector<float> start(job->parameters());
  for (size_t k = 0; k < start.size(); ++k) start[k] = job->initial_value(static_cast<uint32_t>(k));
  const double before = job->held_out_loss(start);
  const StreamingPolicy p;  // H 10, P 2, tau 1, alpha 0.5
  StreamingRounds streaming;
  const double after = job->held_out_loss(run_one_worker(streaming, to_json(p), 100));
  EXPECT_LT(after, before * 0.8) << before << " -> " << after;
}

// DiLoCo's rounds (H SGD steps per data center, the paper's Nesterov outer step) on the
// dense job, whose data centers each pull toward their own targets, with the
// pseudo-gradients summed as `sum` says: "fp32"; "once", each data center's encoded once
// and summed in fp32 (an all-gather's way); "ring", the partial sum re-encoded at every
// hop (a ring's reduce-scatter). The shared model's held-out loss after `rounds`.
double dense_rounds(const std::string& sum, const char* codec_name, int rounds = 4) {
  const int workers = 4, h = 10;
  const size_t n = 25600;
  const ValueCodec& codec = *find_value_codec(codec_name);
  std::vector<std::unique_ptr<Job>> jobs;
  for (int w = 0; w < workers; ++w)
    jobs.push_back(
        make_job(JobConfig{.name = "dense", .seed = 1, .workers = workers, .parameters = n}, w));
  std::vector<float> theta(n, 0.0f);
  NesterovOuter outer(0.7, 0.9, n);
  for (int r = 0; r < rounds; ++r) {
    std::vector<float> total(n, 0.0f);
    for (int w = 0; w < workers; ++w) {
      std::vector<float> local = theta;
      for (int s = 0; s < h; ++s) {
        const SparseUpdate u = jobs[w]->update(static_cast<uint64_t>(r * h + s), local);
        for (size_t k = 0; k < n; ++k) local[k] += workers * u.values[k];  // its own step
      }
      std::vector<float> d = pseudo_gradient(theta, local);
      if (sum == "once") round_to(codec, d);
      for (size_t k = 0; k < n; ++k) total[k] += d[k];
      // The partial sum passed on; after the last, the all-gather's copy.
      if (sum == "ring") round_to(codec, total);
    }
    outer.step(theta, total, workers);
  }
  return jobs[0]->held_out_loss(theta);
}

// Why 4-bit floats cost the dense job its loss (docs/streaming-diloco.md): each data
// center's own pseudo-gradient rounded to E3M0's powers of two. Its data centers pull
// toward their own targets, so their pseudo-gradients are large and cancel in the sum,
// and their rounding errors (up to a third of a value) do not. The ring's re-encoding of
// partial sums adds little to that; bf16 costs nothing.
TEST(StreamingDiloco, FourBitsLossIsEachDataCentersRoundingNotTheRing) {
  const double fp32 = dense_rounds("fp32", "fp32");
  const double once = dense_rounds("once", "fp4");
  const double ring = dense_rounds("ring", "fp4");
  EXPECT_NEAR(dense_rounds("ring", "bf16"), fp32, fp32 * 0.05);
  EXPECT_GT(once, 10 * fp32) << fp32 << " " << once;
  EXPECT_GT(ring, once * 0.8) << once << " " << ring;
  EXPECT_LT(ring, once * 1.5) << once << " " << ring;
}

// Elastic Streaming DiLoCo (docs/streaming-diloco.md#elastic-membership): a joiner takes
// the shared model and every fragment's own momentum, and starts its local copy there; a
// model of the wrong size is refused. Each fragment's round says whether it is the run's
// last, as only the schedule knows: syncs after steps 5, 10, 15 and 20 of H 10, P 2.
TEST(StreamingDiloco, AJoinerTakesTheModelAndEveryFragmentsMomentumAndTheLastRoundIsNamed) {
  StreamingPolicy p;  // H 10, P 2, tau 1
  p.diloco.elastic = true;
  p.diloco.away = {3};
  StreamingRounds member;
  run_one_worker(member, to_json(p), 40);  // eight syncs: every momentum moved
  StreamingRounds joiner;
  TrainingSetup s;
  s.policy = to_json(p);
  joiner.configure(s);
  EXPECT_TRUE(joiner.elastic());
  EXPECT_TRUE(joiner.away(3));
  EXPECT_FALSE(joiner.away(1));
  joiner.start(std::vector<float>(member.evaluated().size(), 0.0f), 4);
  const std::vector<float> state = member.shared_state();
  ASSERT_EQ(state.size(), 2 * member.evaluated().size());
  joiner.adopt(state);
  EXPECT_EQ(joiner.evaluated(), member.evaluated());
  EXPECT_EQ(joiner.working(), member.evaluated());
  EXPECT_EQ(joiner.shared_state(), state);  // the momenta, fragment by fragment
  bool moved = false;
  for (size_t k = member.evaluated().size(); k < state.size(); ++k) moved = moved || state[k] != 0;
  EXPECT_TRUE(moved);
  EXPECT_THROW(joiner.adopt(std::vector<float>(3, 0.0f)), std::runtime_error);

  for (const auto& [iterations, clock, last] : std::vector<std::tuple<int, uint64_t, bool>>{
           {20, 4, false}, {20, 14, false}, {20, 19, true}, {18, 14, true}}) {
    StreamingRounds r;
    TrainingSetup t;
    t.policy = to_json(p);
    t.iterations = iterations;
    r.configure(t);
    r.start(std::vector<float>(8, 0.0f), 2);
    const auto red = r.after_compute(clock, false);
    ASSERT_TRUE(red) << clock;
    EXPECT_EQ(red->last, last) << iterations << " " << clock;
  }
}

}  // namespace
}  // namespace testbed
