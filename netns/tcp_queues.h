// The TCP sockets of a network namespace with their queues, from /proc/PID/net/tcp (the
// table of PID's namespace, so no setns is needed). For an established socket the kernel
// prints tx_queue as the bytes written but not yet acknowledged by the peer, and rx_queue
// as the bytes received but not yet read by the application: what a stalled link (data
// waiting, nothing acknowledged) and a stalled reader (data delivered, never read) leave.
// Its retransmission timeouts since the last acknowledgement that moved, and its zero-window
// probes, tell a queue that is stuck from one that merely holds the same number of bytes
// at every look (a stream of small messages whose acknowledgements are delayed).
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
  uint32_t retransmits = 0;  // RTOs since the last ack that moved (icsk_retransmits)
  uint32_t probes = 0;       // zero-window probes unanswered (icsk_probes_out)
};

// The table's rows; a line that does not parse (the header, anything malformed) is skipped.
std::vector<TcpQueue> parse_proc_net_tcp(const std::string& text);

// The IPv4 TCP sockets of the network namespace process `pid` is in; empty when it is gone.
std::vector<TcpQueue> read_tcp_queues(int pid);

}  // namespace testbed
