#include "netns/nft_delay_hooks.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <linux/netfilter/xt_statistic.h>
#include <linux/netfilter_ipv4.h>
#include <sys/socket.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <vector>

#include "netns/kernel_error.h"
#include "netns/named_netns.h"
#include "netns/nft_socket.h"

namespace testbed {
namespace {

using nft::Freer;
using nft::Rule;
using nft::rule_in;
constexpr const char* kTable = nft::kMangle;
constexpr const char* kPrerouting = "PREROUTING";

using Chain = std::unique_ptr<nftnl_chain, Freer<nftnl_chain, nftnl_chain_free>>;
using Table = std::unique_ptr<nftnl_table, Freer<nftnl_table, nftnl_table_free>>;

nftnl_expr* expr(const char* name) {
  nftnl_expr* e = nftnl_expr_alloc(name);
  if (!e) throw KernelError(errno, std::string("nftnl_expr_alloc(") + name + ")");
  return e;
}

void add_counter(nftnl_rule* r) {
  nftnl_rule_add_expr(r, expr("counter"));
}

// An x_tables extension as iptables-nft passes it: the name, the revision and its info
// struct, padded as x_tables aligns it.
template <typename Info>
void add_xt(nftnl_rule* r, bool target, const char* name, uint32_t revision, const Info& info) {
  // The expression takes the buffer as its own and frees it (libnftnl's match.c, target.c).
  const size_t size = XT_ALIGN(sizeof info);
  void* padded = std::calloc(1, size);
  if (!padded) throw std::bad_alloc();
  std::memcpy(padded, &info, sizeof info);
  nftnl_expr* e = expr(target ? "target" : "match");
  // The attributes of "target" and "match" are separate enumerations of the same layout.
  const uint16_t name_attr = target ? uint16_t{NFTNL_EXPR_TG_NAME} : uint16_t{NFTNL_EXPR_MT_NAME};
  const uint16_t rev_attr = target ? uint16_t{NFTNL_EXPR_TG_REV} : uint16_t{NFTNL_EXPR_MT_REV};
  const uint16_t info_attr = target ? uint16_t{NFTNL_EXPR_TG_INFO} : uint16_t{NFTNL_EXPR_MT_INFO};
  nftnl_expr_set_str(e, name_attr, name);
  nftnl_expr_set_u32(e, rev_attr, revision);
  nftnl_expr_set(e, info_attr, padded, size);
  nftnl_rule_add_expr(r, e);
}

// "-A TB-dev -m statistic --mode random --probability P -j DROP"
Rule loss_rule(const std::string& dev, double loss) {
  Rule r = rule_in(delay_chain_of(dev));
  xt_statistic_info info{};
  info.mode = XT_STATISTIC_MODE_RANDOM;
  // As iptables' statistic extension scales it: the chance in 2^31ths.
  info.u.random.probability = static_cast<uint32_t>(std::lround(0x80000000 * loss));
  add_xt(r.get(), false, "statistic", 0, info);
  add_counter(r.get());
  nftnl_expr* drop = expr("immediate");
  nftnl_expr_set_u32(drop, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
  nftnl_expr_set_u32(drop, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
  nftnl_rule_add_expr(r.get(), drop);
  return r;
}

// "-A TB-dev -j NFQUEUE --queue-num N", as revision 3, the one iptables-nft 1.8 writes.
Rule queue_rule(const std::string& dev, uint16_t queue) {
  Rule r = rule_in(delay_chain_of(dev));
  add_counter(r.get());
  xt_NFQ_info_v3 info{};
  info.queuenum = queue;
  info.queues_total = 1;
  add_xt(r.get(), true, "NFQUEUE", 3, info);
  return r;
}

// "-A PREROUTING -i dev -j TB-dev"
Rule jump_rule(const std::string& dev) {
  Rule r = rule_in(kPrerouting);
  nftnl_expr* meta = expr("meta");
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_KEY, NFT_META_IIFNAME);
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_DREG, NFT_REG_1);
  nftnl_rule_add_expr(r.get(), meta);
  nftnl_expr* cmp = expr("cmp");
  nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
  nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
  nftnl_expr_set(cmp, NFTNL_EXPR_CMP_DATA, dev.c_str(), dev.size() + 1);  // the name exactly
  nftnl_rule_add_expr(r.get(), cmp);
  add_counter(r.get());
  nftnl_expr* jump = expr("immediate");
  nftnl_expr_set_u32(jump, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
  nftnl_expr_set_u32(jump, NFTNL_EXPR_IMM_VERDICT, NFT_JUMP);
  nftnl_expr_set_str(jump, NFTNL_EXPR_IMM_CHAIN, delay_chain_of(dev).c_str());
  nftnl_rule_add_expr(r.get(), jump);
  return r;
}

Chain chain_named(const std::string& name) {
  Chain c(nftnl_chain_alloc());
  if (!c) throw KernelError(errno, "nftnl_chain_alloc");
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_FAMILY, NFPROTO_IPV4);
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, kTable);
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, name.c_str());
  return c;
}

// The built-in chain as iptables-nft makes it, so a later iptables-restore finds it as its
// own: hooked at prerouting, at mangle's priority, accepting what no rule decides.
Chain prerouting_chain() {
  Chain c = chain_named(kPrerouting);
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_HOOKNUM, NF_INET_PRE_ROUTING);
  nftnl_chain_set_s32(c.get(), NFTNL_CHAIN_PRIO, NF_IP_PRI_MANGLE);
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TYPE, "filter");
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_POLICY, NF_ACCEPT);
  return c;
}

std::vector<char> transaction(const Kernel::IngressHooks& hooks,
                              const std::set<std::string>& new_devs) {
  nft::Batch batch;
  Table table(nftnl_table_alloc());
  if (!table) throw KernelError(errno, "nftnl_table_alloc");
  nftnl_table_set_u32(table.get(), NFTNL_TABLE_FAMILY, NFPROTO_IPV4);
  nftnl_table_set_str(table.get(), NFTNL_TABLE_NAME, kTable);
  // Without NLM_F_EXCL a table or chain that exists is left as it is.
  batch.add(NFT_MSG_NEWTABLE, 0,
            [&](nlmsghdr* h) { nftnl_table_nlmsg_build_payload(h, table.get()); });
  if (!new_devs.empty()) {
    const Chain pre = prerouting_chain();
    batch.add(NFT_MSG_NEWCHAIN, 0,
              [&](nlmsghdr* h) { nftnl_chain_nlmsg_build_payload(h, pre.get()); });
  }
  for (const auto& [dev, d] : hooks) {
    const Chain own = chain_named(delay_chain_of(dev));
    batch.add(NFT_MSG_NEWCHAIN, 0,
              [&](nlmsghdr* h) { nftnl_chain_nlmsg_build_payload(h, own.get()); });
    // A rule request naming only its chain deletes every rule of it: the chain is flushed,
    // as iptables-restore's ":TB-dev - [0:0]" does.
    Rule flush = rule_in(delay_chain_of(dev));
    batch.add(NFT_MSG_DELRULE, 0,
              [&](nlmsghdr* h) { nftnl_rule_nlmsg_build_payload(h, flush.get()); });
    std::vector<Rule> rules;
    if (d.loss > 0) rules.push_back(loss_rule(dev, d.loss));
    rules.push_back(queue_rule(dev, d.queue));
    if (new_devs.count(dev)) rules.push_back(jump_rule(dev));
    for (auto& r : rules) {
      batch.add(NFT_MSG_NEWRULE, NLM_F_APPEND,
                [&](nlmsghdr* h) { nftnl_rule_nlmsg_build_payload(h, r.get()); });
    }
  }
  return batch.finish();
}

}  // namespace

std::string delay_chain_of(const std::string& dev) {
  return "TB-" + dev;
}

bool iptables_is_nft() {
  for (const char* dir : {"/usr/sbin", "/sbin", "/usr/local/sbin"}) {
    std::error_code ec;
    const auto real = std::filesystem::canonical(std::string(dir) + "/iptables", ec);
    if (!ec) return real.filename().string().find("nft") != std::string::npos;
  }
  return false;
}

void write_nft_delay_hooks(int netns_fd, const std::string& ns, const Kernel::IngressHooks& hooks,
                           const std::set<std::string>& new_devs) {
  const std::vector<char> batch = transaction(hooks, new_devs);
  const nft::Socket sock = nft::open_socket(netns_fd, ns);
  // One transaction for a hub's thousands of devices can outgrow the default send buffer;
  // as root the buffer may be set to fit it.
  const int size = static_cast<int>(batch.size()) + MNL_SOCKET_BUFFER_SIZE;
  setsockopt(mnl_socket_get_fd(sock.get()), SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
  if (const int error = nft::transact(sock.get(), batch, "delay hooks in " + ns); error != 0)
    throw KernelError(error, "nf_tables transaction (delay hooks in " + ns + ")");
}

}  // namespace testbed
