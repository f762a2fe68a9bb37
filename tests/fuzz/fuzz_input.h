// What the fuzz targets share: the input as text, and as a file for the parsers that read
// one (traces), written to a path of this process's own under /tmp, overwritten each run
// and removed when the process exits (libFuzzer ends a timed run with exit()).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace testbed::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

struct RemovedAtExit {
  std::string path;
  ~RemovedAtExit() { std::remove(path.c_str()); }
};

inline const std::string& as_file(const uint8_t* data, size_t size, const std::string& suffix) {
  static const RemovedAtExit file{"/tmp/tbfuzz-" + std::to_string(getpid()) + suffix};
  std::ofstream(file.path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file.path;
}

}  // namespace testbed::fuzz
