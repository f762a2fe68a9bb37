#include "controller/topology/impairment_backend.h"

namespace testbed {

const char* backend_name(ImpairmentBackend b) {
  switch (b) {
    case ImpairmentBackend::kNetem:
      return "netem";
    case ImpairmentBackend::kDelayLine:
      return "delayline";
    case ImpairmentBackend::kAuto:
      break;
  }
  return "auto";
}

std::optional<ImpairmentBackend> parse_backend_name(const std::string& text) {
  for (const auto b :
       {ImpairmentBackend::kAuto, ImpairmentBackend::kNetem, ImpairmentBackend::kDelayLine}) {
    if (text == backend_name(b)) return b;
  }
  return std::nullopt;
}

}  // namespace testbed
