// The narrow interface between the testbed and the kernel: one call per kind of object and
// verb, each acting inside one named network namespace. LibnlKernel implements it with
// netlink; FakeKernel models it in memory for tests that need no root.
//
// Every mutating call throws KernelError naming the failed call; queries do not mutate.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "ipv4.h"

namespace testbed {

class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct QueueLimit {
  enum class Unit { kPackets, kBytes };
  Unit unit = Unit::kPackets;
  uint32_t limit = 0;
  bool operator==(const QueueLimit&) const = default;
};

// Rate shaping of one interface's egress: an HTB root with one class and a FIFO leaf.
struct HtbShaping {
  uint64_t rate_bytes_per_s = 0;
  uint32_t burst_bytes = 0;
  uint32_t quantum_bytes = 0;
  QueueLimit queue;
  bool operator==(const HtbShaping&) const = default;
};

struct ShapingState {
  HtbShaping config;  // as read back (burst is not compared: the kernel stores ticks)
  uint64_t sent_bytes = 0;
  uint64_t sent_packets = 0;
  uint64_t dropped_packets = 0;
};

struct RouteSpec {
  Ipv4Prefix dst;
  Ipv4Address via;
  std::string dev;
  Ipv4Address src;  // preferred source: the node's own address, so replies find their way back
  bool operator==(const RouteSpec&) const = default;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  virtual bool namespace_exists(const std::string& ns) = 0;
  // The namespace's identity (nsfs inode), 0 when absent; cleanup compares it with the one
  // recorded at creation so that it never deletes a same-named namespace made by others.
  virtual uint64_t namespace_inode(const std::string& ns) = 0;
  // Creates /run/netns/NS; returns the namespace's inode number, its identity for cleanup.
  virtual uint64_t create_namespace(const std::string& ns) = 0;
  virtual void delete_namespace(const std::string& ns) = 0;

  virtual bool link_exists(const std::string& ns, const std::string& dev) = 0;
  virtual void create_veth(const std::string& ns_a, const std::string& if_a,
                           const std::string& ns_b, const std::string& if_b) = 0;
  virtual void delete_link(const std::string& ns, const std::string& dev) = 0;
  virtual bool link_is_up(const std::string& ns, const std::string& dev) = 0;
  virtual void set_link_up(const std::string& ns, const std::string& dev, bool up) = 0;

  virtual bool has_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;
  virtual void add_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;
  virtual void delete_address(const std::string& ns, const std::string& dev, Ipv4Prefix addr) = 0;

  virtual bool forwarding(const std::string& ns) = 0;
  virtual void set_forwarding(const std::string& ns, bool on) = 0;

  virtual bool has_route(const std::string& ns, const RouteSpec& route) = 0;
  virtual void add_route(const std::string& ns, const RouteSpec& route) = 0;
  virtual void delete_route(const std::string& ns, const RouteSpec& route) = 0;

  virtual std::optional<ShapingState> shaping(const std::string& ns, const std::string& dev) = 0;
  // Creates the HTB tree, or changes an existing one in place (no queue flush).
  virtual void set_shaping(const std::string& ns, const std::string& dev, const HtbShaping& s) = 0;
  virtual void remove_shaping(const std::string& ns, const std::string& dev) = 0;
};

}  // namespace testbed
