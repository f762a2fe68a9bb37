#include "controller/cli/args.h"

namespace testbed::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& flags,
           const std::set<std::string>& options) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      rest_.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
      return;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positionals_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const auto eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flags.count(name) && !inline_value) {
      flags_.insert(name);
    } else if (options.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
        value = argv[++i];
      }
      options_[name] = value;
    } else {
      throw UsageError("unknown option --" + name);
    }
  }
}

std::optional<std::string> Args::option(const std::string& name) const {
  auto it = options_.find(name);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::string Args::positional(size_t i, const std::string& fallback) const {
  return i < positionals_.size() ? positionals_[i] : fallback;
}

void Args::at_most(size_t max, const std::string& usage) const {
  if (positionals_.size() > max) throw UsageError("too many arguments; usage: " + usage);
}

}  // namespace testbed::cli
