#include "netns/tcp_queues.h"

#include <fstream>
#include <sstream>

namespace testbed {
namespace {

int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1;
}

// An "ADDR:PORT" field: the address is the 32-bit value in network byte order, printed as
// a host-order integer in hex. Its bytes, lowest first, are the address's bytes in order
// on a little-endian host (x86-64 and arm64, the hosts the testbed runs on).
bool parse_endpoint(const std::string& field, std::string& address, uint16_t& port) {
  if (field.size() != 13 || field[8] != ':') return false;
  uint32_t ip = 0, p = 0;
  for (size_t i = 0; i < field.size(); ++i) {
    if (i == 8) continue;
    const char c = field[i];
    const int digit = hex_digit(c);
    if (digit < 0) return false;
    uint32_t& into = i < 8 ? ip : p;
    into = into * 16 + static_cast<uint32_t>(digit);
  }
  address = std::to_string(ip & 0xff) + "." + std::to_string((ip >> 8) & 0xff) + "." +
            std::to_string((ip >> 16) & 0xff) + "." + std::to_string(ip >> 24);
  port = static_cast<uint16_t>(p);
  return true;
}

bool parse_hex(const std::string& text, uint64_t& out) {
  if (text.empty() || text.size() > 16) return false;
  out = 0;
  for (char c : text) {
    const int digit = hex_digit(c);
    if (digit < 0) return false;
    out = out * 16 + static_cast<uint64_t>(digit);
  }
  return true;
}

}  // namespace

std::vector<TcpQueue> parse_proc_net_tcp(const std::string& text) {
  std::vector<TcpQueue> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout
    // (the kernel's get_tcp4_sock: `retrnsmt` is icsk_retransmits, `timeout` probes_out)
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, probes;
    if (!(fields >> slot >> local >> remote >> state >> queues)) continue;
    fields >> timer >> retransmits >> uid >> probes;   // older formats may lack them: 0
    if (slot.empty() || slot.back() != ':') continue;  // the header line
    TcpQueue q;
    uint64_t st = 0;
    const auto colon = queues.find(':');
    if (!parse_endpoint(local, q.local_address, q.local_port) ||
        !parse_endpoint(remote, q.remote_address, q.remote_port) || !parse_hex(state, st) ||
        st > 0xff || colon == std::string::npos ||
        !parse_hex(queues.substr(0, colon), q.tx_queue) ||
        !parse_hex(queues.substr(colon + 1), q.rx_queue))
      continue;
    q.state = static_cast<uint8_t>(st);
    uint64_t n = 0;
    if (parse_hex(retransmits, n)) q.retransmits = static_cast<uint32_t>(n);
    // Printed in decimal, unlike the columns before it.
    if (!probes.empty() && probes.find_first_not_of("0123456789") == std::string::npos &&
        probes.size() < 10)
      q.probes = static_cast<uint32_t>(std::stoul(probes));
    out.push_back(q);
  }
  return out;
}

std::vector<TcpQueue> read_tcp_queues(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/net/tcp");
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_proc_net_tcp(text.str());
}

}  // namespace testbed
