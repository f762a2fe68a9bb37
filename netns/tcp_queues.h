// The TCP sockets of a network namespace with their queues, from /proc/PID/net/tcp (the
// table of PID's namespace, so no setns is needed). For an established socket the kernel
// prints tx_queue as the bytes written but not yet acknowledged by the peer, and rx_queue
// as the bytes received but not yet read by the application: what a stalled link (data
// waiting, nothing acknowledged) and a stalled reader (data delivered, never read) leave.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

struct TcpQueue {
  std::string local_address, remote_address;  // dotted IPv4
  uint16_t local_port = 0, remote_port = 0;
  uint8_t state = 0;  // the kernel's TCP state; 1 is established
  uint64_t tx_queue = 0, rx_queue = 0;
};

// The table's rows; a line that does not parse (the header, anything malformed) is skipped.
std::vector<TcpQueue> parse_proc_net_tcp(const std::string& text);

// The IPv4 TCP sockets of the network namespace process `pid` is in; empty when it is gone.
std::vector<TcpQueue> read_tcp_queues(int pid);

}  // namespace testbed
