// What the files speaking nf_tables' netlink from this process share (nft_delay_hooks.cpp,
// nft_mangle_rules.cpp): the table they work in, owners of libnftnl's and libmnl's C
// objects, a socket opened in a namespace, and a transaction sent on it.
#pragma once

#include <libmnl/libmnl.h>
#include <libnftnl/rule.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace testbed::nft {

// iptables' mangle table, as iptables-nft names its nf_tables table.
constexpr const char* kMangle = "mangle";

// The deleter of unique_ptr for a C object freed by `Free` (libnftnl's take const pointers).
template <typename T, auto Free>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Rule = std::unique_ptr<nftnl_rule, Freer<nftnl_rule, nftnl_rule_free>>;
inline void close_mnl(mnl_socket* s) {
  mnl_socket_close(s);
}
using Socket = std::unique_ptr<mnl_socket, Freer<mnl_socket, close_mnl>>;

// A rule of `chain` in the mangle table (IPv4), to fill or to name in a request.
Rule rule_in(const std::string& chain);

// A NETLINK_NETFILTER socket of the namespace open as `netns_fd` (named `ns` in errors),
// bound. Throws KernelError.
Socket open_socket(int netns_fd, const std::string& ns);

// One transaction's messages, laid out as the kernel reads them: BEGIN, the requests, END.
class Batch {
 public:
  Batch();
  // A request of `type` (for IPv4) with NLM_F_CREATE and `flags`, its payload written by
  // `fill`.
  template <typename Fill>
  void add(uint16_t type, uint16_t flags, Fill fill) {
    nlmsghdr* h = header(type, flags);
    fill(h);
    add_raw(h);
  }
  // Ends the transaction and returns its bytes.
  const std::vector<char>& finish();

 private:
  nlmsghdr* header(uint16_t type, uint16_t flags);
  char* next();
  void add_raw(const nlmsghdr* h);
  std::vector<char> bytes_;
  size_t used_ = 0;
  uint32_t seq_ = 1;
};

// Sends the request `h` (its sequence number 1) on `sock` and reads the replies, each
// message passed to `cb` with `data`, up to the last (a dump's end, or the
// acknowledgement). False when the kernel answered ENOENT (no such table or chain); throws
// KernelError naming `what` on any other refusal.
bool request(mnl_socket* sock, const nlmsghdr* h, mnl_cb_t cb, void* data, const std::string& what);

// Sends `batch` (a finished Batch) on `sock`, all or nothing; returns the errno of the
// kernel's first refusal, 0 when none. Throws KernelError naming `what` when the socket
// fails.
int transact(mnl_socket* sock, const std::vector<char>& batch, const std::string& what);

}  // namespace testbed::nft
