// `testbed keys`' pure part: which hosts a placement file names, and the placement with their
// public keys added (docs/multihost.md#security). The key pairs themselves come from libzmq.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace testbed {

// The host names under `hosts:`, in order. Throws ValidationError naming the file and line
// when the text is no placement, names a host badly, or already has `keys:` (new keys for a
// lab replace all of its hosts' keys: start from the placement without them).
std::vector<std::string> placement_host_names(const std::string& text, const std::string& file);

// `text` with `keys:` appended: each host's key, quoted (Z85 holds ':' and '#').
std::string placement_with_keys(const std::string& text,
                                const std::map<std::string, std::string>& key_of_host,
                                const std::vector<std::string>& hosts);

}  // namespace testbed
