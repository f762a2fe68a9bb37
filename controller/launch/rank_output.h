// Reading a launched rank's output: its pipes and its metrics file, non-blocking, in lines
// of bounded length (job_runner.cpp).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "controller/launch/job_metrics.h"

namespace testbed {

// Splits a byte stream into lines. A line longer than a metrics line may be is cut there,
// so a job that never writes a newline cannot grow the controller's memory.
class LineBuffer {
 public:
  template <typename F>
  void feed(std::string_view data, F&& on_line) {
    partial_.append(data);
    size_t start = 0;
    for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1)
      on_line(std::string_view(partial_).substr(start, nl - start));
    partial_.erase(0, start);
    if (partial_.size() > kMaxMetricsLine + 1) {
      on_line(std::string_view(partial_));
      partial_.clear();
    }
  }
  template <typename F>
  void flush(F&& on_line) {
    if (!partial_.empty()) on_line(std::string_view(partial_));
    partial_.clear();
  }

 private:
  std::string partial_;
};

// Reads what a non-blocking fd has; false at end of file or error.
template <typename F>
bool drain(int fd, F&& on_data) {
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      on_data(std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    return false;
  }
}

}  // namespace testbed
