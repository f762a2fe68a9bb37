// Errors found in user input, each pinned to FILE:LINE:COL, collected so that one run of
// `testbed validate` reports all of them instead of the first.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace testbed {

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when the error concerns the whole file
  int column = 0;  // 1-based
  std::string message;

  std::string str() const {
    if (line == 0) return file + ": " + message;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
  }
};

// Thrown when input is invalid; carries every diagnostic found.
class ValidationError : public std::runtime_error {
 public:
  explicit ValidationError(std::vector<Diagnostic> diagnostics)
      : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  static std::string join(const std::vector<Diagnostic>& ds) {
    std::string out;
    for (const auto& d : ds) out += d.str() + "\n";
    return out;
  }
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace testbed
