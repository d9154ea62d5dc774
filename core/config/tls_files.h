// Checks a node's TLS files when the configuration is read, so a wrong path,
// a file that is not PEM, or a key that belongs to another certificate stops
// the process at once with the file named, instead of every connection
// failing later in a handshake that only says "handshake failed".
#pragma once

#include <string>

namespace actorcrawl {

// Loads `cert` (PEM certificate chain), `key` (PEM private key) and `ca` (PEM
// CA certificates) as OpenSSL will when nodes connect. Returns an empty
// string when they load and the key matches the certificate; otherwise what
// is wrong, naming the config key and the file.
std::string check_tls_files(const std::string& cert, const std::string& key, const std::string& ca);

}  // namespace actorcrawl
