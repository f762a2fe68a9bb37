#include "controller/dynamics/lab_json_file.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cstdio>
#include <fstream>

namespace testbed {

LabFileLock::LabFileLock(const std::string& lock_path)
    : fd_(open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
  if (fd_.get() < 0) throw_errno("open(" + lock_path + ")");
  if (flock(fd_.get(), LOCK_EX) != 0) throw_errno("flock(" + lock_path + ")");
}

nlohmann::json read_json_object(const std::string& path) {
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

void replace_json(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp, std::ios::trunc) << j.dump() << "\n";
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw_errno("rename(" + path + ")");
}

}  // namespace testbed
