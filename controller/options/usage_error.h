// The error of a setting a user gave (an option on the command line, a key of a profile's
// workload): the verbs print it and exit 2 with nothing changed. It lives below the
// command line because run options and the runs themselves check what users asked for.
#pragma once

#include <stdexcept>

namespace testbed {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace testbed
