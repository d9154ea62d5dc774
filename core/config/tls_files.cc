#include "core/config/tls_files.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace actorcrawl {

namespace {

// OpenSSL's reason for the last failure, and its error queue emptied, so the
// next check starts clean.
std::string openssl_reason() {
  std::string reason;
  while (const unsigned long code = ERR_get_error()) {
    if (reason.empty()) {
      const char* text = ERR_reason_error_string(code);
      reason = text != nullptr ? text : "unknown OpenSSL error";
    }
  }
  return reason.empty() ? "not usable" : reason;
}

std::string unreadable(const char* key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (in)
    return {};
  return std::string{key} + ": cannot read '" + path + "' (" + std::strerror(errno) + ")";
}

}  // namespace

std::string check_tls_files(const std::string& cert, const std::string& key, const std::string& ca) {
  for (const auto& [name, path] : {std::pair{"tls_cert", &cert}, std::pair{"tls_key", &key}, std::pair{"tls_ca", &ca}})
    if (auto error = unreadable(name, *path); !error.empty())
      return error;

  ERR_clear_error();
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_method()), &SSL_CTX_free);
  if (!ctx)
    return "TLS: OpenSSL could not start (" + openssl_reason() + ")";
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()) != 1)
    return "tls_cert: '" + cert + "' is not a PEM certificate OpenSSL accepts (" + openssl_reason() + ")";
  // The key is read on its own first, so "not a key" and "another
  // certificate's key" are told apart (SSL_CTX_use_PrivateKey reports both
  // as a failure to use it).
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(nullptr, &EVP_PKEY_free);
  {
    std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_file(key.c_str(), "r"), &BIO_free);
    if (in)
      pkey.reset(PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr));
  }
  if (!pkey)
    return "tls_key: '" + key + "' is not a PEM private key OpenSSL accepts (" + openssl_reason() + ")";
  if (X509_check_private_key(SSL_CTX_get0_certificate(ctx.get()), pkey.get()) != 1) {
    ERR_clear_error();
    return "tls_key: '" + key + "' is not the private key of the certificate in '" + cert + "'";
  }
  if (SSL_CTX_load_verify_locations(ctx.get(), ca.c_str(), nullptr) != 1)
    return "tls_ca: '" + ca + "' holds no PEM CA certificate OpenSSL accepts (" + openssl_reason() + ")";
  return {};
}

}  // namespace actorcrawl
