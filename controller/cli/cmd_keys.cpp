// testbed keys PLACEMENT --out DIR: a CURVE key pair for every host of a placement, and the
// placement with their public keys (hosts/placement_keys.h, docs/multihost.md#security).
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "agent/transport/curve_keys.h"
#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/hosts/placement_keys.h"
#include "controller/topology/diagnostics.h"
#include "netns/private_files.h"

namespace testbed::cli {

int run_keys(const Argv& argv) {
  static const char* const kUsage = "testbed keys PLACEMENT --out DIR";
  Args args(argv, {}, {"out"});
  args.at_most(1, kUsage);
  if (args.positionals().empty() || !args.option("out"))
    throw UsageError("usage: " + std::string(kUsage));
  const std::string file = args.positional(0);
  const std::string dir = *args.option("out");
  std::ifstream in(file);
  if (!in) throw UsageError(file + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> hosts;
  try {
    hosts = placement_host_names(text.str(), file);
  } catch (const ValidationError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    return kExitInvalid;
  }
  // A directory of secrets: made 0700, or an existing one that root owns, no one else can
  // write and that is empty (private_files.h); every file in it is made new through the
  // directory's descriptor (O_EXCL, O_NOFOLLOW), so nothing planted there is followed or
  // kept. Checked before any key is made: a refusal leaves nothing behind.
  const OutputDir out = OutputDir::open(dir);
  if (!out.empty())
    throw UsageError("--out: " + dir + " is not empty; keys are made into a new directory");
  std::map<std::string, std::string> key_of;
  for (const auto& h : hosts) {
    const CurveKeyPair pair = make_curve_key_pair();
    out.create(h + ".key", curve_key_file_text(pair, "host " + h + " of " + file));
    key_of[h] = pair.public_key;
  }
  const std::string placement = out.shown("placement.yaml");
  out.create("placement.yaml", placement_with_keys(text.str(), key_of, hosts));
  std::cout << "made " << hosts.size() << " key pairs in " << dir << ":\n";
  for (const auto& h : hosts) std::cout << "  " << h << ".key  " << key_of[h] << "\n";
  std::cout << "placement with the public keys: " << placement
            << "\ncopy each HOST.key to its host only (0600); every host uses " << placement
            << "\n";
  return kExitOk;
}

}  // namespace testbed::cli
