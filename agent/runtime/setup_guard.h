// What an agent checks in a setup command before it acts on it. The controller is
// authenticated (CURVE across hosts, a 0600 socket on one box), but a setup still names files
// and sockets that root then creates, binds or removes: a bug or a forged command must not
// make an agent bind an ipc:// path (libzmq unlinks it first), remove a store outside its
// lab, or allocate without bound. So every such field is checked here, on the agent's side,
// whatever the sender checked.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace testbed {

// More nodes than any lab on one machine or a few hosts holds; bounds the endpoint list.
constexpr size_t kMaxSetupNodes = 4096;
// The largest model a setup may ask a node to hold, in 4-byte elements: 2^28 (1 GiB) is
// above the largest named model (VGG-16, 138 M parameters) and below what would exhaust a
// host by a single field.
constexpr uint64_t kMaxModelElements = uint64_t{1} << 28;

// A van endpoint as the controller writes one: tcp://A.B.C.D:PORT (or :* in tests), never a
// host name or an ipc:// path.
bool valid_van_endpoint(const std::string& endpoint);

// `cmd` with its paths checked: `store.dir` and `checkpoint.path` must lie inside `lab_dir`
// (lexically, no '..'); with an empty `lab_dir` (an agent started by hand or in a unit test)
// paths are not confined. Also checks the endpoints (a list of at most kMaxSetupNodes valid
// ones, `self` among them) and model sizes. Throws ContractError naming the field.
void guard_setup(const nlohmann::json& cmd, int self, const std::string& lab_dir);

}  // namespace testbed
