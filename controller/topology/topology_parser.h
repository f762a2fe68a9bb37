// Parses and validates a topology profile. Every problem in the file is reported at once
// as FILE:LINE:COL diagnostics (see ValidationError); nothing here touches the system.
#pragma once

#include <string>

#include "topology.h"

namespace testbed {

// Throws ValidationError listing every error in the file.
Topology parse_topology_file(const std::string& path);

// Same, from text; `file_name` is only used in diagnostics.
Topology parse_topology_text(const std::string& text, const std::string& file_name);

}  // namespace testbed
