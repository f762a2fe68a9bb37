#include "controller/dynamics/timeline_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "netns/named_netns.h"

namespace testbed {
namespace {

double real_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string times(double scheduled_s, double applied_s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(6) << scheduled_s << "," << applied_s << ","
      << std::setprecision(3) << (applied_s - scheduled_s) * 1e3;
  return out.str();
}

}  // namespace

std::string direction_row(double scheduled_s, double applied_s, const LiveDirection& d,
                          const std::string& error) {
  std::ostringstream out;
  out << times(scheduled_s, applied_s) << "," << d.link << "," << d.from << "," << d.to << ","
      << d.params.rate.bits_per_s << "," << d.params.delay.us << "," << d.params.loss.value << ",\""
      << error << "\"," << (d.down ? "down" : "up") << "\n";
  return out.str();
}

std::string node_row(double scheduled_s, double applied_s, const std::string& node,
                     const std::string& state, const std::string& error) {
  return times(scheduled_s, applied_s) + ",," + node + ",,,,,\"" + error + "\"," + state + "\n";
}

double lab_time_s(const std::string& lab_dir) {
  const std::string path = lab_dir + "/timeline-start";
  const double now = real_s();
  double zero = 0;
  if (std::ifstream in(path); in >> zero) return now - zero;
  // O_EXCL: of two first changes at once, one writes the zero and the other reads it.
  FileDescriptor fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() >= 0) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(6) << now << "\n";
    const std::string s = text.str();
    if (write(fd.get(), s.data(), s.size()) != static_cast<ssize_t>(s.size()))
      throw_errno("write(" + path + ")");
    return 0;
  }
  if (std::ifstream in(path); in >> zero) return now - zero;
  return 0;
}

void append_timeline_row(const std::string& lab_dir, const std::string& row) {
  const std::string path = lab_dir + "/timeline.csv";
  FileDescriptor fd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (fd.get() < 0) throw_errno("open(" + path + ")");
  struct stat st {};
  const bool fresh = fstat(fd.get(), &st) == 0 && st.st_size == 0;
  const std::string text = (fresh ? std::string(kTimelineHeader) : std::string()) + row;
  if (write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw_errno("write(" + path + ")");
}

void apply_by_hand(LinkChanger& changer, const std::string& lab_dir, LiveDirection& d,
                   const ScheduleChange& change) {
  const double at = lab_time_s(lab_dir);
  changer.apply(d, change);
  record_current(lab_dir, d);
  append_timeline_row(lab_dir, direction_row(at, lab_time_s(lab_dir), d, ""));
}

}  // namespace testbed
