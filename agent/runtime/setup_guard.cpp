#include "agent/runtime/setup_guard.h"

#include <arpa/inet.h>

#include <filesystem>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// True when `path`, normalized, is `dir` itself or below it.
bool inside(const std::string& path, const std::string& dir) {
  const auto p = std::filesystem::path(path).lexically_normal();
  const auto d = std::filesystem::path(dir).lexically_normal();
  if (!p.is_absolute()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  auto pi = p.begin();
  for (auto di = d.begin(); di != d.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing '/' of the directory
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

void confine(const nlohmann::json& cmd, const char* object, const char* field,
             const std::string& lab_dir) {
  const auto o = cmd.find(object);
  if (o == cmd.end() || !o->is_object()) return;
  const auto f = o->find(field);
  if (f == o->end()) return;
  const std::string name = std::string("setup.") + object + "." + field;
  if (!f->is_string()) throw ContractError(name + ": a path");
  if (!lab_dir.empty() && !inside(f->get<std::string>(), lab_dir))
    throw ContractError(name + ": '" + f->get<std::string>() +
                        "' is outside this lab's directory " + lab_dir);
}

void bounded(const nlohmann::json& cmd, const char* field, const char* name) {
  const auto f = cmd.find(field);
  if (f == cmd.end()) return;
  // Parsed JSON holds a positive count as unsigned; one built in code as signed.
  const bool count = f->is_number_unsigned() || (f->is_number_integer() && f->get<int64_t>() >= 0);
  if (!count || f->get<uint64_t>() > kMaxModelElements)
    throw ContractError(std::string(name) + ": a count of at most " +
                        std::to_string(kMaxModelElements));
}

}  // namespace

bool valid_van_endpoint(const std::string& endpoint) {
  const std::string scheme = "tcp://";
  if (endpoint.rfind(scheme, 0) != 0) return false;
  const auto colon = endpoint.rfind(':');
  if (colon <= scheme.size()) return false;
  const std::string address = endpoint.substr(scheme.size(), colon - scheme.size());
  const std::string port = endpoint.substr(colon + 1);
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1) return false;
  if (port == "*") return true;
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const int p = std::stoi(port);
  return p >= 1 && p <= 65535;
}

void guard_setup(const nlohmann::json& cmd, int self, const std::string& lab_dir) {
  const auto e = cmd.find("endpoints");
  if (e == cmd.end() || !e->is_array() || e->empty() || e->size() > kMaxSetupNodes)
    throw ContractError("setup.endpoints: a list of 1 to " + std::to_string(kMaxSetupNodes) +
                        " van endpoints");
  if (self < 0 || static_cast<size_t>(self) >= e->size())
    throw ContractError("setup.endpoints: no endpoint for this node (" + std::to_string(self) +
                        ")");
  for (size_t i = 0; i < e->size(); ++i) {
    const auto& x = (*e)[i];
    if (!x.is_string() || !valid_van_endpoint(x.get<std::string>()))
      throw ContractError("setup.endpoints[" + std::to_string(i) + "]: tcp://IPv4:PORT, not " +
                          x.dump());
  }
  confine(cmd, "store", "dir", lab_dir);
  confine(cmd, "checkpoint", "path", lab_dir);
  bounded(cmd, "model_elements", "setup.model_elements");
  if (const auto job = cmd.find("job"); job != cmd.end() && job->is_object())
    bounded(*job, "parameters", "setup.job.parameters");
}

}  // namespace testbed
