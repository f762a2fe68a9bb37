#include "agent/transport/curve_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace testbed {
namespace {

// Z85 writes 4 bytes as 5 characters: a 32-byte key is 40 characters.
constexpr size_t kKeyBytes = 32;
constexpr size_t kZ85Chars = 40;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

CurveKeyPair make_curve_key_pair() {
  if (!zmq_has("curve")) throw std::runtime_error("this libzmq was built without CURVE");
  std::array<char, kZ85Chars + 1> pub{}, sec{};
  if (zmq_curve_keypair(pub.data(), sec.data()) != 0)
    throw std::runtime_error(std::string("zmq_curve_keypair: ") + zmq_strerror(zmq_errno()));
  return {pub.data(), sec.data()};
}

bool valid_curve_key(const std::string& z85) {
  if (z85.size() != kZ85Chars) return false;
  std::array<uint8_t, kKeyBytes> out{};
  return zmq_z85_decode(out.data(), z85.c_str()) != nullptr;
}

std::string curve_key_to_z85(const std::string& binary) {
  if (binary.size() != kKeyBytes) return "";
  std::array<char, kZ85Chars + 1> out{};
  if (!zmq_z85_encode(out.data(), reinterpret_cast<const uint8_t*>(binary.data()), kKeyBytes))
    return "";
  return out.data();
}

std::string curve_key_file_text(const CurveKeyPair& pair, const std::string& comment) {
  return "# " + comment + "\n" +
         "# CURVE key pair (Z85). The secret half stays on this host, readable by root only.\n" +
         "public = " + pair.public_key + "\nsecret = " + pair.secret_key + "\n";
}

void write_curve_key_file(const std::string& path, const CurveKeyPair& pair,
                          const std::string& comment) {
  // O_EXCL: an existing file (another host's key, a link planted by someone) is never
  // followed or overwritten; 0600 from its first byte, whatever the umask.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  const std::string s = curve_key_file_text(pair, comment);
  const bool ok = write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size());
  const int err = errno;
  close(fd);
  if (!ok) {
    unlink(path.c_str());
    throw std::runtime_error(path + ": " + std::strerror(err));
  }
}

CurveKeyPair read_curve_key_file(const std::string& path) {
  // Checked and read through one descriptor: the file whose owner and mode were checked is
  // the one read, whatever is renamed or planted at the path in between.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  struct stat st {};
  const bool stat_ok = fstat(fd, &st) == 0;
  std::string text;
  const auto fail = [&](const std::string& why) {
    close(fd);
    return std::runtime_error(path + ": " + why);
  };
  if (!stat_ok || !S_ISREG(st.st_mode)) throw fail("not a regular file");
  if (st.st_uid != geteuid())
    throw fail("owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
               std::to_string(geteuid()) + "); a key another user could replace is no key");
  if (st.st_mode & 077) {
    char m[8];
    std::snprintf(m, sizeof m, "%04o", st.st_mode & 07777);
    throw fail(std::string("a secret key readable or writable by other users (mode ") + m +
               "); make it 0600 or make a new key");
  }
  // A key file is a few hundred bytes; 64 KiB bounds what a wrong file makes us read.
  constexpr size_t kMostBytes = 64 * 1024;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(std::strerror(errno));
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMostBytes) throw fail("larger than a key file (64 KiB)");
  }
  close(fd);
  std::istringstream in(text);
  CurveKeyPair pair;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const std::string field = eq == std::string::npos ? line : trim(line.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(line.substr(eq + 1));
    std::string* into = field == "public"   ? &pair.public_key
                        : field == "secret" ? &pair.secret_key
                                            : nullptr;
    if (!into || !valid_curve_key(value))
      throw std::runtime_error(path + ":" + std::to_string(n) +
                               ": expected 'public = KEY' or "
                               "'secret = KEY' with a 40-character Z85 key");
    *into = value;
  }
  if (pair.public_key.empty() || pair.secret_key.empty())
    throw std::runtime_error(path + ": needs both a 'public' and a 'secret' line");
  // The halves must belong together: a public half pasted from another host's file would
  // otherwise be admitted under that host's name while this host answers with its own.
  std::array<char, kZ85Chars + 1> derived{};
  if (zmq_curve_public(derived.data(), pair.secret_key.c_str()) != 0 ||
      pair.public_key != derived.data())
    throw std::runtime_error(path + ": its public key is not the secret key's");
  return pair;
}

nlohmann::json to_json(const VanCurve& v) {
  return {{"server_public", v.server.public_key},
          {"server_secret", v.server.secret_key},
          {"client_public", v.client.public_key},
          {"client_secret", v.client.secret_key}};
}

VanCurve van_curve_from_json(const nlohmann::json& j) {
  const auto key = [&](const char* name) {
    const auto it = j.is_object() ? j.find(name) : j.end();
    if (it == j.end() || !it->is_string() || !valid_curve_key(it->get<std::string>()))
      throw std::runtime_error(std::string("van_curve.") + name + ": a 40-character Z85 key");
    return it->get<std::string>();
  };
  return {{key("server_public"), key("server_secret")},
          {key("client_public"), key("client_secret")}};
}

}  // namespace testbed
