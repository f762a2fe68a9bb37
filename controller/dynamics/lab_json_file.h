// A small JSON file of a lab's that several processes update (current.json by the timeline
// and `testbed link`; nodes.json by the timeline and `testbed node`): changed under an
// exclusive flock of its own lock file, replaced whole by rename so that a reader needs no
// lock and never sees half a file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "netns/named_netns.h"

namespace testbed {

// Holds `lock_path` (created 0600 when missing) locked until destroyed.
class LabFileLock {
 public:
  explicit LabFileLock(const std::string& lock_path);

 private:
  FileDescriptor fd_;
};

// The object in `path`; an empty object when the file is missing or not an object.
nlohmann::json read_json_object(const std::string& path);
// Writes `j` to path.tmp and renames it over `path`.
void replace_json(const std::string& path, const nlohmann::json& j);

}  // namespace testbed
