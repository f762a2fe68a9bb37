// The netlink messages the testbed sends for shaping, checked byte-level: this kernel has no
// sch_netem, so the netem path is proven here, on the message it would send.
#include <gtest/gtest.h>
#include <linux/pkt_sched.h>
#include <netlink/msg.h>
#include <netlink/route/class.h>
#include <netlink/route/qdisc.h>
#include <netlink/utils.h>

#include "controller/lab/planner.h"
#include "direction_params.h"
#include "netns/tc_objects.h"

namespace testbed {
namespace {

using Msg = std::unique_ptr<nl_msg, nl::Deleter<nl_msg, nlmsg_free>>;

struct Parsed {
  tcmsg header;
  std::string kind;
  std::vector<uint8_t> options;
};

Parsed parse(nl_msg* msg) {
  nlmsghdr* hdr = nlmsg_hdr(msg);
  nlattr* tb[TCA_MAX + 1] = {};
  EXPECT_EQ(nlmsg_parse(hdr, sizeof(tcmsg), tb, TCA_MAX, nullptr), 0);
  Parsed p{*static_cast<tcmsg*>(nlmsg_data(hdr)), nla_get_string(tb[TCA_KIND]), {}};
  if (tb[TCA_OPTIONS]) {
    const auto* data = static_cast<const uint8_t*>(nla_data(tb[TCA_OPTIONS]));
    p.options.assign(data, data + nla_len(tb[TCA_OPTIONS]));
  }
  return p;
}

TEST(TcMessages, ReceiversNetemCarriesDelayJitterLossAndLimit) {
  DirectionParams d =
      direction(Rate{155000000}, Duration{30000}, Duration{2000}, Fraction{0.0002}, std::nullopt);
  const NetemParams n = size_netem(d);
  const Message msg = make_netem_request(7, n, NLM_F_CREATE);
  const Parsed p = parse(msg.get());
  EXPECT_EQ(p.kind, "netem");
  EXPECT_EQ(p.header.tcm_ifindex, 7);
  EXPECT_EQ(p.header.tcm_parent, TC_H_ROOT);
  EXPECT_EQ(p.header.tcm_handle, kNetemRootHandle);
  ASSERT_GE(p.options.size(), sizeof(tc_netem_qopt));
  tc_netem_qopt opt;
  std::memcpy(&opt, p.options.data(), sizeof opt);
  EXPECT_NEAR(nl_ticks2us(opt.latency), 30000, 1);  // netem takes ticks; libnl converts
  EXPECT_NEAR(nl_ticks2us(opt.jitter), 2000, 1);
  EXPECT_NEAR(opt.loss / 4294967295.0, 0.0002, 1e-9);
  // 155 Mbit/s x 32 ms in flight, in 64-byte frames: 620,000 bytes, 9687 packets.
  EXPECT_EQ(opt.limit, 9687u);
  // After the struct, netem's own attributes: the rate that keeps FIFO order.
  ASSERT_GE(p.options.size(), sizeof opt + NLA_HDRLEN + sizeof(tc_netem_rate));
  nlattr attr;
  std::memcpy(&attr, p.options.data() + NLA_ALIGN(sizeof opt), sizeof attr);
  EXPECT_EQ(attr.nla_type & NLA_TYPE_MASK, TCA_NETEM_RATE);
  tc_netem_rate rate;
  std::memcpy(&rate, p.options.data() + NLA_ALIGN(sizeof opt) + NLA_HDRLEN, sizeof rate);
  EXPECT_EQ(rate.rate, UINT32_MAX);
}

TEST(TcMessages, NetemKeepsOrderUnlessReorderIsAllowed) {
  DirectionParams d =
      direction(Rate{100000000}, Duration{30000}, Duration{5000}, Fraction{}, std::nullopt);
  EXPECT_TRUE(size_netem(d).keep_order);
  d.reorder = true;
  const NetemParams n = size_netem(d);
  EXPECT_FALSE(n.keep_order);
  const Message msg = make_netem_request(7, n, 0);
  const Parsed p = parse(msg.get());
  tc_netem_rate rate;
  ASSERT_GE(p.options.size(), sizeof(tc_netem_qopt) + NLA_HDRLEN + sizeof rate);
  std::memcpy(&rate, p.options.data() + NLA_ALIGN(sizeof(tc_netem_qopt)) + NLA_HDRLEN, sizeof rate);
  EXPECT_EQ(rate.rate, 0u) << "rate 0 turns order keeping off, also in a change";
}

TEST(TcMessages, NetemLimitIsNeverBelowNetemsOwnDefault) {
  DirectionParams d =
      direction(Rate{1000000}, Duration{1000}, Duration{}, Fraction{}, std::nullopt);
  EXPECT_EQ(size_netem(d).limit_packets, 1000u);
}

TEST(TcMessages, FifoLeafWhenNotImpaired) {
  DirectionParams d = direction(Rate{100000000}, Duration{0}, Duration{}, Fraction{}, std::nullopt);
  nl::Qdisc leaf = make_leaf(3, size_shaping(d));
  nl_msg* raw = nullptr;
  ASSERT_EQ(rtnl_qdisc_build_add_request(leaf.get(), NLM_F_CREATE, &raw), 0);
  Msg msg(raw);
  const Parsed p = parse(msg.get());
  EXPECT_EQ(p.kind, "bfifo");
  tc_fifo_qopt opt;
  ASSERT_GE(p.options.size(), sizeof opt);
  std::memcpy(&opt, p.options.data(), sizeof opt);
  EXPECT_EQ(opt.limit, 250000u);  // 100 Mbit/s x 20 ms
}

// The TBF request's options, parsed back as the kernel reads them.
struct TbfOptions {
  tc_tbf_qopt parms{};
  uint64_t rate64 = 0;
  uint32_t burst = 0;
};

TbfOptions tbf_options(nl_msg* msg) {
  nlattr* tb[TCA_MAX + 1] = {};
  EXPECT_EQ(nlmsg_parse(nlmsg_hdr(msg), sizeof(tcmsg), tb, TCA_MAX, nullptr), 0);
  EXPECT_EQ(std::string(static_cast<const char*>(nla_data(tb[TCA_KIND]))), "tbf");
  nlattr* tbf[TCA_TBF_MAX + 1] = {};
  EXPECT_EQ(nla_parse_nested(tbf, TCA_TBF_MAX, tb[TCA_OPTIONS], nullptr), 0);
  TbfOptions o;
  if (tbf[TCA_TBF_PARMS]) std::memcpy(&o.parms, nla_data(tbf[TCA_TBF_PARMS]), sizeof o.parms);
  if (tbf[TCA_TBF_RATE64]) o.rate64 = nla_get_u64(tbf[TCA_TBF_RATE64]);
  if (tbf[TCA_TBF_BURST]) o.burst = nla_get_u32(tbf[TCA_TBF_BURST]);
  return o;
}

TEST(TcMessages, TbfCarriesItsRateBucketInBytesAndEthernetFraming) {
  DirectionParams d =
      direction(Rate{100000000}, Duration{30000}, Duration{}, Fraction{}, std::nullopt);
  const RateShaping s = size_shaping(d);
  const Message change = make_tbf_request(5, s, 0);
  const TbfOptions o = tbf_options(change.get());
  EXPECT_EQ(nlmsg_hdr(change.get())->nlmsg_type, RTM_NEWQDISC);
  EXPECT_EQ(o.parms.rate.rate, 12500000u);
  EXPECT_EQ(o.rate64, 12500000u);
  EXPECT_EQ(o.burst, s.burst_bytes);
  // No rate table needed: the kernel computes transmission times for Ethernet framing.
  EXPECT_EQ(o.parms.rate.linklayer, TC_LINKLAYER_ETHERNET);
  // A change hands the leaf its limit (fifo_set_limit), so it is the leaf's own.
  EXPECT_EQ(o.parms.limit, s.queue.limit);
}

TEST(TcMessages, ANewTbfHasNoDefaultLeafToReplace) {
  DirectionParams d =
      direction(Rate{100000000}, Duration{30000}, Duration{}, Fraction{}, std::nullopt);
  const Message create = make_tbf_request(5, size_shaping(d), NLM_F_CREATE | NLM_F_EXCL);
  EXPECT_EQ(tbf_options(create.get()).parms.limit, 0u);
}

}  // namespace
}  // namespace testbed
