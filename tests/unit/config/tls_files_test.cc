#include "core/config/tls_files.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "core/config/crawl_config.h"
#include "tests/unit/temp_path.h"

using namespace actorcrawl;

namespace {

std::string tls_data(const char* name) {
  return (std::filesystem::path{ACTORCRAWL_TEST_DATA} / "tls" / name).lexically_normal().string();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("tls files: a certificate, its key and the CA that signed it pass", "[tls]") {
  CHECK(check_tls_files(tls_data("node.pem"), tls_data("node.key"), tls_data("ca.pem")).empty());
  // The CA file may be the node's own chain: any PEM certificate is a CA list.
  CHECK(check_tls_files(tls_data("node.pem"), tls_data("node.key"), tls_data("node.pem")).empty());
}

TEST_CASE("tls files: each wrong file is named with what is wrong with it", "[tls]") {
  const std::string cert = tls_data("node.pem"), key = tls_data("node.key"), ca = tls_data("ca.pem");
  const std::string missing = tls_data("missing.pem");

  auto e = check_tls_files(missing, key, ca);
  CHECK(e == "tls_cert: cannot read '" + missing + "' (No such file or directory)");
  e = check_tls_files(cert, missing, ca);
  CHECK(contains(e, "tls_key: cannot read '" + missing + "'"));
  e = check_tls_files(cert, key, missing);
  CHECK(contains(e, "tls_ca: cannot read '" + missing + "'"));

  testing::TempPath junk("tls_junk", ".pem");
  junk.write("this is not PEM\n");
  e = check_tls_files(junk.str(), key, ca);
  INFO(e);
  CHECK(contains(e, "tls_cert: '" + junk.str() + "' is not a PEM certificate"));
  e = check_tls_files(cert, junk.str(), ca);
  CHECK(contains(e, "tls_key: '" + junk.str() + "' is not a PEM private key"));
  e = check_tls_files(cert, key, junk.str());
  CHECK(contains(e, "tls_ca: '" + junk.str() + "' holds no PEM CA certificate"));
  // A key and a certificate swapped.
  e = check_tls_files(key, cert, ca);
  CHECK(contains(e, "tls_cert: '" + key + "' is not a PEM certificate"));

  // A valid key of another certificate.
  e = check_tls_files(cert, tls_data("other.key"), ca);
  CHECK(contains(e, "tls_key: '" + tls_data("other.key") + "' is not the private key of the certificate in '" +
                      cert + "'"));
}

TEST_CASE("tls files: validate() refuses a configuration whose TLS files do not load", "[tls][config]") {
  CrawlConfig c;
  c.tls_cert = tls_data("node.pem");
  c.tls_key = tls_data("other.key");
  c.tls_ca = tls_data("ca.pem");
  try {
    validate(c, false);
    FAIL("validate accepted a key of another certificate");
  } catch (const ConfigError& e) {
    CHECK(contains(e.what(), "is not the private key of the certificate"));
  }
  c.tls_key = tls_data("node.key");
  CHECK_NOTHROW(validate(c, false));
}
