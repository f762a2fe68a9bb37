// One reader of /proc/PID/stat, for everything that asks of a process by its number: its
// state, the CPU it used and when it started (the identity a recorded pid is checked by).
// The command's name (field 2) may hold spaces and parentheses, so fields are counted from
// its last ')'; written once here so that no reader gets that wrong.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace testbed {

struct ProcessStat {
  char state = '\0';          // field 3: R, S, D, T, Z (a zombie), X (dead), ...
  uint64_t user_ticks = 0;    // field 14, utime, in clock ticks (sysconf(_SC_CLK_TCK))
  uint64_t system_ticks = 0;  // field 15, stime
  uint64_t start_time = 0;    // field 22, in clock ticks since boot
};

// Pure: the text of /proc/PID/stat; nullopt when it is not one.
std::optional<ProcessStat> parse_process_stat(const std::string& text);
// nullopt when there is no such process.
std::optional<ProcessStat> read_process_stat(int pid);

// The CPU the calling thread has run: what a sampler's own sample cost it, whatever the
// host's load did to its wall time.
std::chrono::nanoseconds thread_cpu();

}  // namespace testbed
