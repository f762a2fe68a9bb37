#include "netns/nft_mangle_rules.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/xt_DSCP.h>
#include <linux/netfilter/xt_dscp.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include "netns/kernel_error.h"
#include "netns/named_netns.h"
#include "netns/nft_socket.h"

namespace testbed {
namespace {

// The DSCP field is the IPv4 header's second byte, above its two ECN bits.
constexpr uint32_t kTosOffset = 1;
constexpr int kEcnBits = 2;

using nft::Rule;
using ExprIter =
    std::unique_ptr<nftnl_expr_iter, nft::Freer<nftnl_expr_iter, nftnl_expr_iter_destroy>>;

// What a register was last loaded with, as iptables-nft loads it for the two matches read.
enum class Loaded { kNothing, kInterfaceName, kTosByte };

// One rule's expressions -> its device, code point and counter. iptables-nft writes "-i DEV"
// as meta iifname then cmp eq "DEV\0"; "-m dscp --dscp N" as the x_tables match "dscp"
// (revision 0, its info struct), or natively as the header's byte masked and compared:
// both are read. Called back from libmnl's C: it throws nothing (out of memory, the rule
// comes back matching no device).
MangleRule mangle_rule_of(const nftnl_rule* r) noexcept {
  MangleRule out;
  Loaded loaded = Loaded::kNothing;
  ExprIter it(nftnl_expr_iter_create(r));
  if (!it) return out;
  for (nftnl_expr* e = nftnl_expr_iter_next(it.get()); e; e = nftnl_expr_iter_next(it.get())) {
    const std::string name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
    uint32_t len = 0;
    if (name == "meta") {
      loaded = nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY) == NFT_META_IIFNAME
                   ? Loaded::kInterfaceName
                   : Loaded::kNothing;
    } else if (name == "payload") {
      const bool tos =
          nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_BASE) == NFT_PAYLOAD_NETWORK_HEADER &&
          nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET) == kTosOffset &&
          nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_LEN) == 1;
      loaded = tos ? Loaded::kTosByte : Loaded::kNothing;
    } else if (name == "cmp") {
      const auto* data = static_cast<const char*>(nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len));
      const bool equal = nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP) == NFT_CMP_EQ;
      if (data && equal && loaded == Loaded::kInterfaceName)
        out.dev.assign(data, strnlen(data, len));
      if (data && equal && loaded == Loaded::kTosByte && len >= 1)
        out.dscp = static_cast<unsigned char>(data[0]) >> kEcnBits;
      loaded = Loaded::kNothing;
    } else if (name == "match") {
      const void* info = nftnl_expr_get(e, NFTNL_EXPR_MT_INFO, &len);
      if (std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_MT_NAME), "dscp") == 0 && info &&
          len >= sizeof(xt_dscp_info)) {
        xt_dscp_info dscp{};
        std::memcpy(&dscp, info, sizeof dscp);
        if (!dscp.invert) out.dscp = dscp.dscp;
      }
    } else if (name == "target") {
      const void* info = nftnl_expr_get(e, NFTNL_EXPR_TG_INFO, &len);
      if (std::strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_TG_NAME), "DSCP") == 0 && info &&
          len >= sizeof(xt_DSCP_info)) {
        xt_DSCP_info set{};
        std::memcpy(&set, info, sizeof set);
        out.dscp = set.dscp;
      }
    } else if (name == "counter") {
      out.packets = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
      out.bytes = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
    }
    // "bitwise" (the mask over the byte) keeps the register's meaning; the rest is no match
    // this reader needs.
  }
  return out;
}

int on_rule(const nlmsghdr* h, void* data) noexcept {
  Rule r(nftnl_rule_alloc());
  if (!r || nftnl_rule_nlmsg_parse(h, r.get()) < 0) return MNL_CB_ERROR;
  try {
    MangleRule rule = mangle_rule_of(r.get());
    rule.handle = nftnl_rule_get_u64(r.get(), NFTNL_RULE_HANDLE);
    static_cast<std::vector<MangleRule>*>(data)->push_back(std::move(rule));
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return MNL_CB_ERROR;
  }
  return MNL_CB_OK;
}

}  // namespace

std::vector<MangleRule> read_nft_mangle_rules(const std::string& ns, const std::string& chain) {
  std::vector<MangleRule> rules;
  if (!netns_exists(ns)) return rules;
  const nft::Socket sock = nft::open_socket(open_netns(ns).get(), ns);
  // A dump of the rules of one table and chain: the kernel leaves out the others.
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf.data(), NFT_MSG_GETRULE, NFPROTO_IPV4, NLM_F_DUMP, 1);
  const Rule filter = nft::rule_in(chain);
  nftnl_rule_nlmsg_build_payload(h, filter.get());
  // No mangle table in this namespace yet: no rules, as iptables would say.
  if (!nft::request(sock.get(), h, on_rule, &rules, "rules of " + chain + " in " + ns)) return {};
  return rules;
}

bool nft_mangle_chain_exists(const std::string& ns, const std::string& chain) {
  if (!netns_exists(ns)) return false;
  const nft::Socket sock = nft::open_socket(open_netns(ns).get(), ns);
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf.data(), NFT_MSG_GETCHAIN, NFPROTO_IPV4, NLM_F_ACK, 1);
  const std::unique_ptr<nftnl_chain, nft::Freer<nftnl_chain, nftnl_chain_free>> c(
      nftnl_chain_alloc());
  if (!c) throw KernelError(errno, "nftnl_chain_alloc");
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, nft::kMangle);
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, chain.c_str());
  nftnl_chain_nlmsg_build_payload(h, c.get());
  // The chain comes back, then the acknowledgement; or ENOENT, the table or chain absent.
  bool found = false;
  const auto seen = [](const nlmsghdr*, void* flag) {
    *static_cast<bool*>(flag) = true;
    return MNL_CB_OK;
  };
  return nft::request(sock.get(), h, seen, &found, "chain " + chain + " in " + ns) && found;
}

void delete_nft_mangle_rules(const std::string& ns, const std::string& chain,
                             const std::vector<uint64_t>& handles) {
  if (handles.empty()) return;
  nft::Batch batch;
  for (const uint64_t handle : handles) {
    const nft::Rule r = nft::rule_in(chain);
    nftnl_rule_set_u64(r.get(), NFTNL_RULE_HANDLE, handle);
    batch.add(NFT_MSG_DELRULE, 0, [&](nlmsghdr* h) { nftnl_rule_nlmsg_build_payload(h, r.get()); });
  }
  const nft::Socket sock = nft::open_socket(open_netns(ns).get(), ns);
  const std::string what = "deleting rules of " + chain + " in " + ns;
  if (const int error = nft::transact(sock.get(), batch.finish(), what); error != 0)
    throw KernelError(error, "nf_tables transaction (" + what + ")");
}

}  // namespace testbed
