#include "netns/delay_line_stats.h"

#include <sstream>
#include <stdexcept>

namespace testbed {

std::string format_delay_line_stats(const std::vector<DelayLineQueueStats>& queues) {
  std::ostringstream out;
  for (const auto& q : queues) {
    out << "queue " << q.queue << " released " << q.released << " queue_dropped " << q.queue_dropped
        << " user_dropped " << q.user_dropped << " lateness " << q.lateness.format() << " emulator "
        << q.emulator_lateness.format() << "\n";
  }
  return out.str();
}

std::vector<std::pair<std::string, std::string>> split_stats_sections(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string mark = kStatsSection;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    if (line.compare(0, mark.size(), mark) == 0) {
      if (line.size() == mark.size())
        throw std::invalid_argument("delay-line answer: a section without a name");
      out.emplace_back(line.substr(mark.size()), "");
    } else if (out.empty()) {
      throw std::invalid_argument("delay-line answer: '" + line + "' before any section");
    } else {
      out.back().second += line + "\n";
    }
    at = end + 1;
  }
  return out;
}

std::vector<DelayLineQueueStats> parse_delay_line_stats(const std::string& text) {
  std::vector<DelayLineQueueStats> out;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string k1, k2, k3, k4, k5;
    unsigned queue = 0;
    DelayLineQueueStats q;
    if (!(in >> k1 >> queue >> k2 >> q.released >> k3 >> q.queue_dropped >> k4 >> q.user_dropped >>
          k5) ||
        k1 != "queue" || k2 != "released" || k3 != "queue_dropped" || k4 != "user_dropped" ||
        k5 != "lateness" || queue > 65535) {
      throw std::invalid_argument("delay-line stats line " + std::to_string(number) + ": '" + line +
                                  "'");
    }
    q.queue = static_cast<uint16_t>(queue);
    std::string rest;
    std::getline(in, rest);
    const std::string marker = " emulator ";
    const size_t split = rest.find(marker);
    q.lateness = LatenessHistogram::parse(rest.substr(0, split));
    q.emulator_lateness = split == std::string::npos
                              ? q.lateness
                              : LatenessHistogram::parse(rest.substr(split + marker.size()));
    out.push_back(q);
  }
  return out;
}

std::map<uint16_t, NfqueueDrops> parse_nfqueue_table(const std::string& text) {
  std::map<uint16_t, NfqueueDrops> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    unsigned queue = 0;
    uint64_t portid = 0, total = 0, mode = 0, range = 0;
    NfqueueDrops d;
    if (in >> queue >> portid >> total >> mode >> range >> d.queue_dropped >> d.user_dropped &&
        queue <= 65535) {
      out[static_cast<uint16_t>(queue)] = d;
    }
  }
  return out;
}

}  // namespace testbed
