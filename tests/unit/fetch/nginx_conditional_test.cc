// Conditional requests against a real server's validators: nginx serving a
// static file on loopback answers 304 to the ETag and to the Last-Modified
// the engine captured from it, and 200 once the file has changed. nginx
// compares If-Modified-Since exactly (`if_modified_since exact`), so this
// also proves the date goes back as the server wrote it. Skipped, with a
// warning, where nginx is not installed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/fetch/fetch_engine.h"
#include "core/fetch/http_date.h"
#include "fetch_test_support.h"
#include "tests/support/local_nginx.h"

using namespace actorcrawl;
using actorcrawl::testing::fetch;
using actorcrawl::testing::write_static_file;
namespace fs = std::filesystem;

namespace {

// Static files, no redirects: every request as the engine sends a first one.
FetchRequest request_for(const std::string& url, std::uint64_t token) {
  return actorcrawl::testing::request_for(url, token, 0);
}

}  // namespace

TEST_CASE("conditional: nginx answers 304 to its own ETag and Last-Modified, 200 once the file changed",
          "[fetch][conditional][nginx]") {
  std::string tmpl = (fs::temp_directory_path() / "actorcrawl-nginx.XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const fs::path dir{tmpl};
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  ACTORCRAWL_LOCAL_NGINX(server, dir);

  const fs::path file = server.root() / "page.html";
  const std::int64_t t1 = 1600000000;  // 2020-09-13T12:26:40Z
  write_static_file(file, "<html>version one</html>", t1);
  FetchEngine engine;

  const FetchOutcome first = fetch(engine, request_for(server.url("/page.html"), 1));
  REQUIRE(first.error == FetchError::none);
  CHECK(first.status_code == 200);
  CHECK(first.body == "<html>version one</html>");
  CHECK_FALSE(first.etag.empty());
  CHECK(first.last_modified == format_http_date(t1 * 1000));
  CHECK(first.last_modified_ms == t1 * 1000);

  FetchRequest by_etag = request_for(server.url("/page.html"), 2);
  by_etag.if_none_match = first.etag;
  const FetchOutcome etag_304 = fetch(engine, by_etag);
  CHECK(etag_304.error == FetchError::none);
  CHECK(etag_304.status_code == 304);
  CHECK(etag_304.not_modified);
  CHECK(etag_304.body.empty());

  FetchRequest by_date = request_for(server.url("/page.html"), 3);
  by_date.if_modified_since_ms = first.last_modified_ms;
  const FetchOutcome date_304 = fetch(engine, by_date);
  CHECK(date_304.error == FetchError::none);
  CHECK(date_304.status_code == 304);
  CHECK(date_304.not_modified);
  CHECK(date_304.body.empty());

  // The file changes (content, size and time): both validators are stale.
  write_static_file(file, "<html>version two, longer</html>", t1 + 3600);
  const FetchOutcome etag_200 = fetch(engine, by_etag);
  CHECK(etag_200.status_code == 200);
  CHECK_FALSE(etag_200.not_modified);
  CHECK(etag_200.body == "<html>version two, longer</html>");
  CHECK_FALSE(etag_200.etag.empty());
  CHECK(etag_200.etag != first.etag);
  CHECK(etag_200.last_modified_ms == (t1 + 3600) * 1000);
  const FetchOutcome date_200 = fetch(engine, by_date);
  CHECK(date_200.status_code == 200);
  CHECK_FALSE(date_200.not_modified);
  CHECK(date_200.body == "<html>version two, longer</html>");

  // The new validators hold again.
  FetchRequest fresh = request_for(server.url("/page.html"), 4);
  fresh.if_none_match = etag_200.etag;
  fresh.if_modified_since_ms = etag_200.last_modified_ms;
  CHECK(fetch(engine, fresh).status_code == 304);
}
