// The verbs of `testbed`, their usage and their help: the one source that `testbed --help`,
// `testbed VERB --help` and each verb's own usage errors print from.
#pragma once

#include <map>
#include <string>

#include "controller/cli/commands.h"

namespace testbed::cli {

struct Verb {
  int (*run)(const Argv&);
  const char* usage;  // without the leading "testbed "
  const char* summary;
  const char* details = nullptr;  // more, for `testbed VERB --help`
};

const std::map<std::string, Verb>& verbs();

// "testbed " and the verb's usage, as a verb's usage error prints it.
std::string usage_of(const std::string& verb);

}  // namespace testbed::cli
