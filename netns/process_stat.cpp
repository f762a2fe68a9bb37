#include "netns/process_stat.h"

#include <time.h>

#include <fstream>
#include <sstream>

namespace testbed {

std::optional<ProcessStat> parse_process_stat(const std::string& text) {
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  std::istringstream rest(text.substr(close + 2));
  ProcessStat s;
  std::string field;
  for (int k = 3; k <= 22; ++k) {
    if (!(rest >> field)) return std::nullopt;
    try {
      if (k == 3) s.state = field.size() == 1 ? field[0] : '\0';
      if (k == 14) s.user_ticks = std::stoull(field);
      if (k == 15) s.system_ticks = std::stoull(field);
      if (k == 22) s.start_time = std::stoull(field);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (s.state == '\0') return std::nullopt;
  return s;
}

std::optional<ProcessStat> read_process_stat(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parse_process_stat(line);
}

std::chrono::nanoseconds thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace testbed
