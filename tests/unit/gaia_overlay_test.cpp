// Gaia's overlay (Sec. 4.5) and what t counts (Sec. 3.5): the groups and hubs computed from
// rates, the groups by hand and their errors, that the overlay's relay rules bring every
// update to every data center exactly once, the mirror client's two lanes in order over
// loopback, and the pass reading of t in the threshold and the job's step.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "agent/jobs/job.h"
#include "agent/protocols/gaia/key_bitmap.h"
#include "agent/protocols/gaia/mirror_client.h"
#include "controller/options/workload_settings.h"
#include "controller/training/gaia/gaia_plan.h"
#include "read_text.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

// The lab's directions of a profile, as PsSession passes them to the plan.
std::vector<PathDirection> directions_of(const Topology& t) {
  std::vector<PathDirection> out;
  for (const auto& l : t.links) {
    out.push_back({static_cast<int>(l.a), static_cast<int>(l.b),
                   static_cast<double>(l.a2b.rate.bits_per_s), l.a2b.delay.us / 1e6});
    out.push_back({static_cast<int>(l.b), static_cast<int>(l.a),
                   static_cast<double>(l.b2a.rate.bits_per_s), l.b2a.delay.us / 1e6});
  }
  return out;
}

struct Eleven {
  Topology t = parse_profile_text(read_text(TESTBED_PROFILES_DIR + "/gaia-11.yaml"),
                                  "profiles/gaia-11.yaml");
  std::vector<std::string> names;
  std::vector<int> dcs;
  PathRate rate;
  Eleven() {
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      names.push_back(t.nodes[n].name);
      dcs.push_back(static_cast<int>(n));
    }
    rate = data_center_rates(dcs, directions_of(t));
  }
  std::vector<std::vector<std::string>> named(const GaiaOverlay& o) const {
    std::vector<std::vector<std::string>> out;
    for (const auto& g : o.groups) {
      out.push_back({});
      for (int n : g) out.back().push_back(names[static_cast<size_t>(n)]);
    }
    return out;
  }
  int at(const std::string& name) const {
    return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
  }
};

TEST(GaiaOverlay, ElevenRegionsGroupByContinentAndTheFastestPairsAreHubs) {
  const Eleven e;
  const auto o = gaia_overlay("auto", e.dcs, e.names, e.rate);
  // The paper's example groups Virginia, California and Oregon; the rest follow the rates.
  const std::vector<std::vector<std::string>> expected = {{"virginia", "california", "oregon"},
                                                          {"ireland", "frankfurt"},
                                                          {"tokyo", "seoul", "singapore", "mumbai"},
                                                          {"sydney"},
                                                          {"saopaulo"}};
  EXPECT_EQ(e.named(o), expected);
  // Virginia is the US hub towards Europe and Oregon towards Asia: the paper's example.
  EXPECT_EQ(o.hub.at({0, 1}), e.at("virginia"));
  EXPECT_EQ(o.hub.at({1, 0}), e.at("ireland"));
  EXPECT_EQ(o.hub.at({0, 2}), e.at("oregon"));
  EXPECT_EQ(o.hub.at({2, 0}), e.at("tokyo"));
  // Every group has one hub towards every other: 5 groups, 20 ordered pairs.
  EXPECT_EQ(o.hub.size(), 20u);
  const auto json = overlay_to_json(o, e.names);
  EXPECT_EQ(json["groups"].size(), 5u);
}

TEST(GaiaOverlay, TwoDataCentersOrOffAreOneGroupWithNoHub) {
  const Eleven e;
  const auto off = gaia_overlay("off", e.dcs, e.names, e.rate);
  EXPECT_TRUE(off.broadcast());
  EXPECT_EQ(overlay_links(off, 0).size(), 10u);
  const PathRate two = {{{0, 1}, 1e6}, {{1, 0}, 1e6}};
  EXPECT_EQ(groups_by_rate({0, 1}, two), (std::vector<std::vector<int>>{{0, 1}}));
  // Unshaped paths are faster than any shaped one.
  const PathRate mixed = {{{0, 1}, 0},   {{1, 0}, 0},   {{0, 2}, 1e6},
                          {{2, 0}, 1e6}, {{1, 2}, 2e6}, {{2, 1}, 2e6}};
  EXPECT_EQ(groups_by_rate({0, 1, 2}, mixed), (std::vector<std::vector<int>>{{0, 1}, {2}}));
}

TEST(GaiaOverlay, GroupsByHandNameTheirMistakes) {
  const Eleven e;
  const auto o = gaia_overlay(
      "virginia,california,oregon,saopaulo/ireland,frankfurt/tokyo,seoul,singapore,"
      "mumbai,sydney",
      e.dcs, e.names, e.rate);
  EXPECT_EQ(o.groups.size(), 3u);
  const auto refused = [&](const std::string& spec) {
    try {
      gaia_overlay(spec, e.dcs, e.names, e.rate);
    } catch (const std::invalid_argument& x) {
      return std::string(x.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("virginia,mars").find("no data center named 'mars'"), std::string::npos);
  EXPECT_NE(refused("virginia/virginia").find("'virginia' is in two groups"), std::string::npos);
  EXPECT_NE(refused("virginia,california").find("is in no group"), std::string::npos);
  EXPECT_NE(check_gaia_groups("a,b//c").find("an empty group"), std::string::npos);
  EXPECT_NE(check_gaia_groups("a,,b").find("an empty name"), std::string::npos);
  EXPECT_EQ(check_gaia_groups("auto"), "");
  EXPECT_EQ(check_workload_setting("gaia-groups", "a/b"), "");
  EXPECT_NE(check_workload_setting("gaia-t", "epoch"), "");
}

// The relay rules of GaiaProtocol played over the overlay's links: a data center sends its
// own update to every link; a hub passes what a group member sent (not relayed) to its
// hub links, and what a hub link brought to its group members, flagged relayed.
std::map<int, int> deliveries(const GaiaOverlay& o, int origin) {
  std::map<int, int> got;
  struct Message {
    int from, to;
    bool relayed;
  };
  std::vector<Message> queue;
  for (const auto& l : overlay_links(o, origin)) queue.push_back({origin, l.node, false});
  for (size_t i = 0; i < queue.size(); ++i) {
    const auto m = queue[i];
    ++got[m.to];
    const auto links = overlay_links(o, m.to);
    bool from_hub = false;
    for (const auto& l : links) from_hub |= l.node == m.from && l.role == OverlayRole::kHub;
    for (const auto& l : links) {
      if (from_hub && l.role == OverlayRole::kGroup) queue.push_back({m.to, l.node, true});
      if (!from_hub && !m.relayed && l.role == OverlayRole::kHub)
        queue.push_back({m.to, l.node, false});
    }
  }
  return got;
}

TEST(GaiaOverlay, EveryUpdateReachesEveryOtherDataCenterExactlyOnce) {
  const Eleven e;
  for (const std::string spec :
       {"auto", "off",
        "virginia,california,oregon,saopaulo/ireland,frankfurt/tokyo,seoul,"
        "singapore,mumbai,sydney"}) {
    const auto o = gaia_overlay(spec, e.dcs, e.names, e.rate);
    for (int origin : e.dcs) {
      const auto got = deliveries(o, origin);
      EXPECT_EQ(got.size(), e.dcs.size() - 1) << spec << " from " << e.names[origin];
      for (const auto& [dc, times] : got) {
        EXPECT_NE(dc, origin) << spec;
        EXPECT_EQ(times, 1) << spec << ": " << e.names[origin] << " -> " << e.names[dc];
      }
    }
  }
  // The overlay carries fewer messages a clock than the broadcast: 64 against 110.
  size_t links = 0;
  for (int dc : e.dcs)
    links += overlay_links(gaia_overlay("auto", e.dcs, e.names, e.rate), dc).size();
  EXPECT_EQ(links, 40u);  // 20 within groups, 20 between hubs; 24 relays come on top
}

TEST(MirrorClient, TheTwoLanesLeaveInTheirOrderAndOnlyRelaysAreFlagged) {
  zmq::context_t c0, c1;
  Van v0{c0, 0, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}};
  Van v1{c1, 1, {v0.endpoint(), "tcp://127.0.0.1:*"}};
  // Node 1 sends to node 0. A window of one message: the second and third wait.
  MirrorClient client(v1, 1, 1000, {{0, 64, false}}, {0});
  client.update({{1, 2}, {0.5f, 0.5f}}, 1);
  client.update({{3}, {1.0f}}, 2, Reach::kGroup, Lane::kRelayed);
  client.update({{4}, {1.0f}}, 2);  // own lane, behind the relayed message
  EXPECT_FALSE(client.idle());
  EXPECT_EQ(client.counts().barriers, 2u);
  client.acked(0, 1);  // the first acknowledged: the relayed one, the earlier, goes
  EXPECT_FALSE(client.idle());
  client.acked(0, 2);
  EXPECT_TRUE(client.idle());
  std::vector<std::pair<uint64_t, bool>> updates;  // seq, relayed
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (updates.size() < 3 && std::chrono::steady_clock::now() < deadline)
    if (auto r = v0.receive(std::chrono::milliseconds(100)))
      if (r->header.kind == WireKind::kMirrorUpdate)
        updates.push_back({r->header.tag, (r->header.flags & kRelayed) != 0});
  const std::vector<std::pair<uint64_t, bool>> expected = {{1, false}, {2, true}, {3, false}};
  EXPECT_EQ(updates, expected);
  EXPECT_GT(client.counts().relayed_bytes, 0u);
}

TEST(MirrorClient, ABarrierNamesOnlyTheKeysNewToTheMessageThatWaits) {
  zmq::context_t c0, c1;
  Van v0{c0, 0, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}};
  Van v1{c1, 1, {v0.endpoint(), "tcp://127.0.0.1:*"}};
  MirrorClient client(v1, 1, 1000, {{0, 64, false}}, {0});
  client.update({{1, 2}, {0.5f, 0.5f}}, 1);  // goes at once: no barrier
  client.update({{3, 4}, {1.0f, 1.0f}}, 2);  // waits: both named
  client.update({{3, 5}, {1.0f, 1.0f}}, 3);  // merged: 3 is barred already, 5 is new
  client.update({{4, 5}, {1.0f, 1.0f}}, 4);  // merged: nothing new, no barrier at all
  EXPECT_EQ(client.counts().barriers, 2u);
  EXPECT_EQ(client.counts().barrier_keys, 3u);
  EXPECT_EQ(client.counts().merged, 4u);
  // 497 more make the message name half the model: one header bars every key, and what
  // merges after it needs no barrier.
  Significant half;
  for (uint32_t k = 10; k < 507; ++k) half.keys.push_back(k), half.deltas.push_back(1.0f);
  client.update(half, 5);
  client.update({{900}, {1.0f}}, 6);
  EXPECT_EQ(client.counts().barriers, 3u);
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> barriers;  // seq, keys
  std::vector<bool> dense;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (barriers.size() < 3 && std::chrono::steady_clock::now() < deadline)
    if (auto r = v0.receive(std::chrono::milliseconds(100)))
      if (r->header.kind == WireKind::kMirrorBarrier) {
        barriers.push_back({r->header.tag, r->keys});
        dense.push_back((r->header.flags & kDense) != 0);
      }
  const std::vector<std::pair<uint64_t, std::vector<uint32_t>>> expected = {
      {2, {3, 4}}, {2, {5}}, {2, {}}};
  EXPECT_EQ(barriers, expected);
  EXPECT_EQ(dense, (std::vector<bool>{false, false, true}));
}

TEST(KeyBitmap, ABarriersKeysGoAsABitmapWhereTheListWouldBeLongerAndComeBackTheSame) {
  EXPECT_EQ(bitmap_words(1000), 32u);
  EXPECT_FALSE(bitmap_is_shorter(32, 1000));
  EXPECT_TRUE(bitmap_is_shorter(33, 1000));
  const std::vector<uint32_t> keys = {0, 31, 32, 500, 999};
  EXPECT_EQ(from_bitmap(to_bitmap(keys, 1000), 1000), keys);
  EXPECT_THROW(from_bitmap(std::vector<uint32_t>(31, 0), 1000), std::runtime_error);
  auto past = to_bitmap({}, 1000);
  past.back() = 1u << 31;  // key 1023 of a model of 1000
  EXPECT_THROW(from_bitmap(past, 1000), std::runtime_error);
  // The client picks the shorter: 100 waiting keys of 1000 leave as 32 words.
  zmq::context_t c0, c1;
  Van v0{c0, 0, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}};
  Van v1{c1, 1, {v0.endpoint(), "tcp://127.0.0.1:*"}};
  MirrorClient client(v1, 1, 1000, {{0, 64, false}}, {0});
  client.update({{1}, {1.0f}}, 1);  // in flight: what follows waits
  Significant hundred;
  for (uint32_t k = 0; k < 100; ++k) hundred.keys.push_back(k * 7), hundred.deltas.push_back(1.0f);
  client.update(hundred, 2);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::optional<Received> barrier;
  while (!barrier && std::chrono::steady_clock::now() < deadline)
    if (auto r = v0.receive(std::chrono::milliseconds(100)))
      if (r->header.kind == WireKind::kMirrorBarrier) barrier = std::move(r);
  ASSERT_TRUE(barrier);
  EXPECT_TRUE(barrier->header.flags & kKeyBitmap);
  EXPECT_EQ(barrier->keys.size(), 32u);
  EXPECT_EQ(from_bitmap(barrier->keys, 1000), hundred.keys);
}

TEST(ScheduleT, PassesBegunOrClocksAndTheJobsStepCountsTheSame) {
  EXPECT_EQ(schedule_t(1, 10, true), 1u);
  EXPECT_EQ(schedule_t(10, 10, true), 1u);
  EXPECT_EQ(schedule_t(11, 10, true), 2u);
  EXPECT_EQ(schedule_t(80, 10, true), 8u);
  EXPECT_EQ(schedule_t(80, 10, false), 80u);
  EXPECT_EQ(schedule_t(7, 1, true), 7u);  // a full-batch job: a clock is a pass
  JobConfig clocks{"mf", 3, 2, 0.2};
  JobConfig passes = clocks;
  passes.t_in_passes = true;
  EXPECT_EQ(make_job(passes, 0)->clocks_per_pass(), 10u);
  const auto norm = [](const SparseUpdate& u) {
    double s = 0;
    for (float v : u.values) s += double{v} * v;
    return std::sqrt(s);
  };
  auto a = make_job(clocks, 0), b = make_job(passes, 0);
  std::vector<float> w(a->parameters());
  for (size_t k = 0; k < w.size(); ++k) w[k] = a->initial_value(static_cast<uint32_t>(k));
  // Clock 0: t is 0 both ways, the same step.
  EXPECT_EQ(a->update(0, w).values, b->update(0, w).values);
  // Clock 59: t is 59 clocks (Bösen's schedule: 0.79 of the start) or the sixth pass
  // (eta0 / sqrt(6): 0.41); the pass reading's step is the smaller.
  auto c = make_job(clocks, 0), d = make_job(passes, 0);
  EXPECT_LT(norm(d->update(59, w)), norm(c->update(59, w)));
}

}  // namespace
}  // namespace testbed
