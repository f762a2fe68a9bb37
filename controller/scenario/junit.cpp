#include "controller/scenario/junit.h"

#include <sstream>

namespace testbed {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no place for other control characters.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

}  // namespace

std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases) {
  size_t failures = 0;
  double total = 0;
  for (const auto& c : cases) {
    failures += c.failed ? 1 : 0;
    total += c.seconds;
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\""
    << escape(suite) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures
    << "\" errors=\"0\" time=\"" << total << "\">\n";
  for (const auto& c : cases) {
    x << "    <testcase classname=\"" << escape(c.classname) << "\" name=\"" << escape(c.name)
      << "\" time=\"" << c.seconds << "\"";
    if (c.failed) {
      x << ">\n      <failure message=\"" << escape(c.message) << "\"/>\n    </testcase>\n";
    } else {
      x << "/>\n";
    }
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

}  // namespace testbed
