// Owning handles for libnl objects and a checker that turns libnl error codes into
// KernelError naming the failed call.
#pragma once

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/route.h>

#include <memory>
#include <string>

#include "netns/kernel.h"

namespace testbed::nl {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};

using Socket = std::unique_ptr<nl_sock, Deleter<nl_sock, nl_socket_free>>;
using Address = std::unique_ptr<nl_addr, Deleter<nl_addr, nl_addr_put>>;
using Cache = std::unique_ptr<nl_cache, Deleter<nl_cache, nl_cache_free>>;
using Link = std::unique_ptr<rtnl_link, Deleter<rtnl_link, rtnl_link_put>>;
using Addr = std::unique_ptr<rtnl_addr, Deleter<rtnl_addr, rtnl_addr_put>>;
using Route = std::unique_ptr<rtnl_route, Deleter<rtnl_route, rtnl_route_put>>;
using Qdisc = std::unique_ptr<rtnl_qdisc, Deleter<rtnl_qdisc, rtnl_qdisc_put>>;
using Class = std::unique_ptr<rtnl_class, Deleter<rtnl_class, rtnl_class_put>>;

// Returns err when it is not negative; else throws "CALL: libnl's message".
inline int check(int err, const std::string& call) {
  if (err < 0) throw KernelError(call + ": " + nl_geterror(err));
  return err;
}

template <typename T>
T* check_alloc(T* p, const std::string& call) {
  if (!p) throw KernelError(call + ": out of memory");
  return p;
}

// An IPv4 address with prefix length in libnl's representation.
Address ipv4(Ipv4Address a, int prefix_length = 32);

}  // namespace testbed::nl
