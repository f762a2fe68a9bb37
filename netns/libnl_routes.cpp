// The testbed's routes through libnl: installed in batches, found and removed by ownership
// (kRouteProtocol). A lab of N nodes has N-1 routes in each namespace; one netlink round
// trip per route made route installs most of a 1000-node `up` (999,000 of them).
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>

#include <cstring>
#include <map>
#include <memory>

#include "netns/libnl_kernel.h"

namespace testbed {
namespace {

// Requests per send: the kernel handles every message of one send in order and answers
// only the last (it asks for an acknowledgement) and any it refused. 128 route requests
// (about 80 bytes each) stay well inside libnl's 32 KiB socket buffers.
constexpr size_t kRoutesPerSend = 128;

// A batch's requests are numbered from here, on a socket used for nothing else; any
// number does, as every reply to a batch is read before the next is sent.
constexpr unsigned int kBatchSeq = 1;

struct BatchReplies {
  unsigned int last_seq = 0;  // the batch's acknowledged request
  bool done = false;
  int error = 0;               // the first refusal's errno (negative), 0 when none
  unsigned int error_seq = 0;  // and its request's sequence number
};

int on_ack(nl_msg* msg, void* arg) {
  auto* r = static_cast<BatchReplies*>(arg);
  if (nlmsg_hdr(msg)->nlmsg_seq != r->last_seq) return NL_SKIP;
  r->done = true;
  return NL_STOP;
}

int on_error(sockaddr_nl*, nlmsgerr* err, void* arg) {
  auto* r = static_cast<BatchReplies*>(arg);
  if (r->error == 0) {
    r->error = err->error;
    r->error_seq = err->msg.nlmsg_seq;
  }
  if (err->msg.nlmsg_seq != r->last_seq) return NL_SKIP;  // later requests still answer
  r->done = true;
  return NL_STOP;
}

// Replies come for some requests only, so libnl's check that each reply answers the next
// request in order does not apply.
int accept_any_sequence(nl_msg*, void*) {
  return NL_OK;
}

// One request as rtnl_route_build_add_request writes it for route_object's route (the same
// header and attributes), written straight into the batch: building each through libnl's
// objects (a route, three addresses, a next hop and a page-sized message, all allocated)
// took a third of the routes' time in a 1000-node `up`, the kernel's insertions the rest.
// Returns the request's length.
size_t put_route_request(char* at, const RouteSpec& r, int ifindex, uint16_t flags, uint32_t seq,
                         uint32_t port) {
  nlmsghdr* hdr = mnl_nlmsg_put_header(at);
  hdr->nlmsg_type = RTM_NEWROUTE;
  hdr->nlmsg_flags = static_cast<uint16_t>(NLM_F_REQUEST | flags);
  hdr->nlmsg_seq = seq;
  hdr->nlmsg_pid = port;
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(hdr, sizeof(rtmsg)));
  rtm->rtm_family = AF_INET;
  rtm->rtm_dst_len = static_cast<unsigned char>(r.dst.length);
  rtm->rtm_table = RT_TABLE_MAIN;
  rtm->rtm_protocol = kRouteProtocol;
  rtm->rtm_scope = RT_SCOPE_UNIVERSE;
  rtm->rtm_type = RTN_UNICAST;
  mnl_attr_put_u32(hdr, RTA_TABLE, RT_TABLE_MAIN);
  mnl_attr_put_u32(hdr, RTA_DST, htonl(r.dst.address.value));
  mnl_attr_put_u32(hdr, RTA_PREFSRC, htonl(r.src.value));
  mnl_attr_put_u32(hdr, RTA_GATEWAY, htonl(r.via.value));
  mnl_attr_put_u32(hdr, RTA_OIF, static_cast<uint32_t>(ifindex));
  return NLMSG_ALIGN(hdr->nlmsg_len);
}

// Room for one request: the header, rtmsg and five 4-byte attributes take 68 bytes.
constexpr size_t kRouteRequestRoom = 128;

std::string describe(const RouteSpec& r, const std::string& ns) {
  return r.dst.str() + " via " + r.via.str() + " dev " + r.dev + " in " + ns;
}

}  // namespace

nl::Route LibnlKernel::route_object(const std::string& ns, const RouteSpec& r) {
  nl::Route route(nl::check_alloc(rtnl_route_alloc(), "rtnl_route_alloc"));
  rtnl_route_set_family(route.get(), AF_INET);
  rtnl_route_set_table(route.get(), RT_TABLE_MAIN);
  rtnl_route_set_protocol(route.get(), kRouteProtocol);
  rtnl_route_set_scope(route.get(), RT_SCOPE_UNIVERSE);
  nl::Address dst = nl::ipv4(r.dst.address, r.dst.length);
  nl::check(rtnl_route_set_dst(route.get(), dst.get()), "rtnl_route_set_dst");
  nl::Address src = nl::ipv4(r.src);
  nl::check(rtnl_route_set_pref_src(route.get(), src.get()), "rtnl_route_set_pref_src");
  rtnl_nexthop* nh = nl::check_alloc(rtnl_route_nh_alloc(), "rtnl_route_nh_alloc");
  rtnl_route_nh_set_ifindex(nh, ifindex(ns, r.dev));
  nl::Address via = nl::ipv4(r.via);
  rtnl_route_nh_set_gateway(nh, via.get());
  rtnl_route_add_nexthop(route.get(), nh);  // the route owns the nexthop from here
  return route;
}

std::vector<RouteSpec> LibnlKernel::routes(const std::string& ns) {
  nl_cache* raw = nullptr;
  nl::check(rtnl_route_alloc_cache(context(ns).sock.get(), AF_INET, 0, &raw),
            "rtnl_route_alloc_cache(" + ns + ")");
  nl::Cache cache(raw);
  std::map<int, std::string> names;  // ifindex -> device, for this namespace's devices
  for (const auto& [dev, index] : context(ns).ifindex) names[index] = dev;
  nl::Cache links;  // the namespace's devices by index, made when first needed
  std::vector<RouteSpec> out;
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* route = reinterpret_cast<rtnl_route*>(o);
    if (rtnl_route_get_protocol(route) != kRouteProtocol ||
        rtnl_route_get_table(route) != RT_TABLE_MAIN || rtnl_route_get_nnexthops(route) != 1) {
      continue;
    }
    rtnl_nexthop* nh = rtnl_route_nexthop_n(route, 0);
    const nl_addr* dst = rtnl_route_get_dst(route);
    const nl_addr* via = rtnl_route_nh_get_gateway(nh);
    const nl_addr* src = rtnl_route_get_pref_src(route);
    if (!dst || !via || !src) continue;
    const auto v4 = [](const nl_addr* a) {
      uint32_t be = 0;
      std::memcpy(&be, nl_addr_get_binary_addr(a), sizeof be);
      return Ipv4Address{ntohl(be)};
    };
    const int index = rtnl_route_nh_get_ifindex(nh);
    if (!names.count(index)) {
      // A device not looked up yet: the namespace's links, read once for the call.
      if (!links) {
        nl_cache* raw_links = nullptr;
        nl::check(rtnl_link_alloc_cache(context(ns).sock.get(), AF_UNSPEC, &raw_links),
                  "rtnl_link_alloc_cache(" + ns + ")");
        links.reset(raw_links);
      }
      char name[IFNAMSIZ] = {};
      rtnl_link_i2name(links.get(), index, name, sizeof name);
      names[index] = name;
    }
    out.push_back({Ipv4Prefix{v4(dst), static_cast<int>(nl_addr_get_prefixlen(dst))}, v4(via),
                   names[index], v4(src)});
  }
  return out;
}

void LibnlKernel::add_routes(const std::string& ns, const std::vector<RouteSpec>& routes) {
  send_routes(ns, routes, NLM_F_CREATE | NLM_F_EXCL, true);
}

void LibnlKernel::replace_routes(const std::string& ns, const std::vector<RouteSpec>& routes) {
  send_routes(ns, routes, NLM_F_CREATE | NLM_F_REPLACE, false);
}

void LibnlKernel::send_routes(const std::string& ns, const std::vector<RouteSpec>& routes,
                              int flags, bool all_or_nothing) {
  // A socket of its own: libnl counts the replies a socket reads against the requests it
  // numbered, and a batch answered once would leave the namespace's socket out of step
  // ("Message sequence number mismatch" at its next request).
  nl::Socket batch_socket(nl::check_alloc(nl_socket_alloc(), "nl_socket_alloc"));
  {
    NetnsScope inside(netns_fd(ns).get());
    nl::check(nl_connect(batch_socket.get(), NETLINK_ROUTE), "nl_connect(" + ns + ")");
  }
  nl_sock* sock = batch_socket.get();
  // nl_socket_get_cb takes a reference of its own (libnl's nl_cb_get), which must be put
  // back: without it every batch leaked the socket's callbacks (measured by the flap soak:
  // the timeline grew about 9 MB a minute under 200 cuts and restores a second).
  std::unique_ptr<nl_cb, nl::Deleter<nl_cb, nl_cb_put>> socket_cb(nl_socket_get_cb(sock));
  nl_cb* own = nl::check_alloc(nl_cb_clone(socket_cb.get()), "nl_cb_clone");
  std::unique_ptr<nl_cb, nl::Deleter<nl_cb, nl_cb_put>> cb(own);
  BatchReplies replies;
  nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_ack, &replies);
  nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, accept_any_sequence, nullptr);
  nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &replies);

  const uint32_t port = nl_socket_get_local_port(sock);
  std::vector<char> batch(kRoutesPerSend * kRouteRequestRoom);
  for (size_t first = 0; first < routes.size(); first += kRoutesPerSend) {
    const size_t end = std::min(routes.size(), first + kRoutesPerSend);
    size_t used = 0;
    const unsigned int first_seq = kBatchSeq + static_cast<unsigned int>(first);
    for (size_t i = first; i < end; ++i) {
      const auto ack = static_cast<uint16_t>(i + 1 == end ? NLM_F_ACK : 0);
      used += put_route_request(batch.data() + used, routes[i], ifindex(ns, routes[i].dev),
                                static_cast<uint16_t>(flags) | ack,
                                kBatchSeq + static_cast<unsigned int>(i), port);
    }
    replies = BatchReplies{first_seq + static_cast<unsigned int>(end - first - 1)};
    nl::check(nl_sendto(sock, batch.data(), used), "nl_sendto(routes of " + ns + ")");
    while (!replies.done) {
      const int err = nl_recvmsgs(sock, cb.get());
      if (err < 0 && !replies.done) nl::check(err, "nl_recvmsgs(routes of " + ns + ")");
    }
    if (replies.error != 0) {
      const size_t failed = first + (replies.error_seq - first_seq);
      // All or nothing: what this call installed goes again (those the kernel refused are
      // not there to delete, which is as good). A replacement has nothing to go back to.
      for (size_t i = 0; all_or_nothing && i < end; ++i) {
        if (i != failed)
          rtnl_route_delete(context(ns).sock.get(), route_object(ns, routes[i]).get(), 0);
      }
      throw KernelError(std::string(all_or_nothing ? "add_routes(" : "replace_routes(") +
                        (failed < end ? describe(routes[failed], ns) : "a route in " + ns) +
                        "): " + std::strerror(-replies.error));
    }
  }
}

void LibnlKernel::withdraw_routes(const std::string& ns, const std::vector<Ipv4Prefix>& dsts) {
  for (const Ipv4Prefix& dst : dsts) {
    // By destination and owner alone: the kernel matches a route by what the request names.
    nl::Route route(nl::check_alloc(rtnl_route_alloc(), "rtnl_route_alloc"));
    rtnl_route_set_family(route.get(), AF_INET);
    rtnl_route_set_table(route.get(), RT_TABLE_MAIN);
    rtnl_route_set_protocol(route.get(), kRouteProtocol);
    // Any scope: without one, libnl guesses "host" for a route with no gateway, and the
    // kernel then finds no such route.
    rtnl_route_set_scope(route.get(), RT_SCOPE_NOWHERE);
    nl::Address a = nl::ipv4(dst.network(), dst.length);
    nl::check(rtnl_route_set_dst(route.get(), a.get()), "rtnl_route_set_dst");
    const int err = rtnl_route_delete(context(ns).sock.get(), route.get(), 0);
    if (err < 0 && err != -NLE_OBJ_NOTFOUND)
      nl::check(err, "rtnl_route_delete(" + dst.str() + " in " + ns + ")");
  }
}

void LibnlKernel::delete_routes(const std::string& ns) {
  for (const RouteSpec& r : routes(ns)) {
    nl::check(rtnl_route_delete(context(ns).sock.get(), route_object(ns, r).get(), 0),
              "rtnl_route_delete(" + describe(r, ns) + ")");
  }
}

}  // namespace testbed
