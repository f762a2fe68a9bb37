// CurveZMQ keys (RFC 26, libzmq's CURVE mechanism over libsodium): what authenticates and
// encrypts every socket of a lab that crosses hosts (docs/multihost.md#security).
//
// Two kinds of keys, both made by libzmq's zmq_curve_keypair from the kernel's entropy:
// - a host's pair, made by `testbed keys` for every host of a placement: its public half is
//   carried in the placement (`keys:`), its secret half only in a 0600 file on that host. The
//   controller admits on its control port only the placement's host keys, each for its own
//   host's nodes; the hosts pin the controller's host key and talk to no other server.
// - a run's van pairs, new for every run spread over hosts: the controller sends them in the
//   setup over the authenticated channel; every node's van serves with the run's server pair
//   and admits only the run's client key, so only the run's nodes are heard, encrypted.
// Keys travel as Z85 text (40 characters for 32 bytes), as libzmq's options take them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace testbed {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;  // Z85, 40 characters; never logged, never in a placement
  bool operator==(const CurveKeyPair&) const = default;
};

// A new pair; throws std::runtime_error when libzmq was built without CURVE.
CurveKeyPair make_curve_key_pair();
// 40 characters of Z85's alphabet that decode to 32 bytes.
bool valid_curve_key(const std::string& z85);
// A 32-byte binary key (a ZAP request's) as Z85.
std::string curve_key_to_z85(const std::string& binary);

// A host's key file: "public = KEY" and "secret = KEY" lines (comments with '#'). Written
// 0600 and never over an existing file; read only when it is a regular file that no other
// user can read or write (a secret others could read is no secret). Both throw
// std::runtime_error naming the file.
void write_curve_key_file(const std::string& path, const CurveKeyPair& pair,
                          const std::string& comment);
// The text such a file holds (a Kubernetes Secret carries it as it is).
std::string curve_key_file_text(const CurveKeyPair& pair, const std::string& comment);
CurveKeyPair read_curve_key_file(const std::string& path);

// The van's keys for one run spread over hosts (van.h): every node serves with `server`
// and connects with `client`.
struct VanCurve {
  CurveKeyPair server, client;
  static VanCurve make() { return {make_curve_key_pair(), make_curve_key_pair()}; }
  bool operator==(const VanCurve&) const = default;
};
nlohmann::json to_json(const VanCurve& v);
// Throws std::runtime_error naming a missing or malformed key.
VanCurve van_curve_from_json(const nlohmann::json& j);

}  // namespace testbed
