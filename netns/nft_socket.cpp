#include "netns/nft_socket.h"

#include <libnftnl/common.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/socket.h>

#include <cerrno>

#include "netns/kernel_error.h"
#include "netns/named_netns.h"

namespace testbed::nft {
namespace {

// Room for the next message at the end: a rule's request is well under a page.
constexpr size_t kMessageRoom = 4096;
// The kernel fills a dump's reads up to 16 KB (netlink's NLMSG_GOODSIZE, rounded up); a
// smaller buffer would cut them.
constexpr size_t kDumpRead = 32768;

}  // namespace

Rule rule_in(const std::string& chain) {
  Rule r(nftnl_rule_alloc());
  if (!r) throw KernelError(errno, "nftnl_rule_alloc");
  nftnl_rule_set_u32(r.get(), NFTNL_RULE_FAMILY, NFPROTO_IPV4);
  nftnl_rule_set_str(r.get(), NFTNL_RULE_TABLE, kMangle);
  nftnl_rule_set_str(r.get(), NFTNL_RULE_CHAIN, chain.c_str());
  return r;
}

Socket open_socket(int netns_fd, const std::string& ns) {
  Socket sock;
  {
    NetnsScope inside(netns_fd);  // a netlink socket speaks for the namespace it opened in
    sock.reset(mnl_socket_open(NETLINK_NETFILTER));
  }
  if (!sock) throw KernelError(errno, "socket(NETLINK_NETFILTER in " + ns + ")");
  if (mnl_socket_bind(sock.get(), 0, MNL_SOCKET_AUTOPID) < 0)
    throw KernelError(errno, "bind(NETLINK_NETFILTER in " + ns + ")");
  return sock;
}

Batch::Batch() {
  add_raw(nftnl_batch_begin(next(), seq_++));
}

const std::vector<char>& Batch::finish() {
  add_raw(nftnl_batch_end(next(), seq_++));
  return bytes_;
}

nlmsghdr* Batch::header(uint16_t type, uint16_t flags) {
  return nftnl_nlmsg_build_hdr(next(), type, NFPROTO_IPV4, NLM_F_CREATE | flags, seq_++);
}

char* Batch::next() {
  bytes_.resize(used_ + kMessageRoom);
  return bytes_.data() + used_;
}

void Batch::add_raw(const nlmsghdr* h) {
  used_ += NLMSG_ALIGN(h->nlmsg_len);
  bytes_.resize(used_);
}

bool request(mnl_socket* sock, const nlmsghdr* h, mnl_cb_t cb, void* data,
             const std::string& what) {
  if (mnl_socket_sendto(sock, h, h->nlmsg_len) < 0) throw KernelError(errno, "nf_tables " + what);
  const uint32_t port = mnl_socket_get_portid(sock);
  std::vector<char> buf(kDumpRead);
  for (;;) {
    const ssize_t n = mnl_socket_recvfrom(sock, buf.data(), buf.size());
    if (n < 0) throw KernelError(errno, "nf_tables " + what);
    // An acknowledgement is an error message of 0: mnl_cb_run stops at it, as at a
    // dump's end.
    const int done = mnl_cb_run(buf.data(), static_cast<size_t>(n), h->nlmsg_seq, port, cb, data);
    if (done == MNL_CB_STOP) return true;
    if (done < 0 && errno == ENOENT) return false;
    if (done < 0) throw KernelError(errno, "nf_tables " + what);
  }
}

// Sends the transaction, then a request for the ruleset's generation. The kernel answers on
// one socket in order, so every refusal of the transaction has arrived when the
// generation does; the first refusal's errno is returned, 0 when none.
int transact(mnl_socket* sock, const std::vector<char>& batch, const std::string& what) {
  if (mnl_socket_sendto(sock, batch.data(), batch.size()) < 0)
    throw KernelError(errno, "nf_tables transaction (" + what + ")");
  std::vector<char> ask(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr* h = nftnl_nlmsg_build_hdr(ask.data(), NFT_MSG_GETGEN, AF_UNSPEC, 0, 0);
  if (mnl_socket_sendto(sock, h, h->nlmsg_len) < 0)
    throw KernelError(errno, "nf_tables generation (" + what + ")");
  int error = 0;
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  for (;;) {
    const ssize_t n = mnl_socket_recvfrom(sock, buf.data(), buf.size());
    if (n < 0) throw KernelError(errno, "nf_tables replies (" + what + ")");
    int left = static_cast<int>(n);
    for (auto* m = reinterpret_cast<nlmsghdr*>(buf.data()); mnl_nlmsg_ok(m, left);
         m = mnl_nlmsg_next(m, &left)) {
      if (m->nlmsg_type == NLMSG_ERROR) {
        const auto* e = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(m));
        if (e->error != 0 && error == 0) error = -e->error;
      } else if (NFNL_MSG_TYPE(m->nlmsg_type) == NFT_MSG_NEWGEN) {
        return error;
      }
    }
  }
}

}  // namespace testbed::nft
