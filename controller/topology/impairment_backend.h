// What applies delay, jitter and loss on the receiving side of a link, and its names: the
// one place the profile's `backend:`, `--backend`, the plan's and the lab state's text and
// the enum meet.
#pragma once

#include <optional>
#include <string>

namespace testbed {

// netem on an IFB device where the kernel has it, else the userspace delay line (NFQUEUE).
// kAuto picks by what exists.
enum class ImpairmentBackend { kAuto, kNetem, kDelayLine };

// "auto", "netem", "delayline".
const char* backend_name(ImpairmentBackend b);
// The inverse; nullopt for any other text.
std::optional<ImpairmentBackend> parse_backend_name(const std::string& text);

}  // namespace testbed
