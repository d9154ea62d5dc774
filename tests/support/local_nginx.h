// nginx on loopback for crawls against a real static-file server: one
// foreground process (no master, no workers, so no user switch and one pid
// to stop), its files in a directory of the test's, serving `root()` on
// 127.0.0.1 with ETag on and If-Modified-Since compared exactly, and an
// access log the test reads: the server's own record of every request, with
// the validators it was sent and the status it answered.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// Opens a test that needs nginx: declares `server`, a running LocalNginx
// in `dir` (further arguments go to its constructor) whose error log a
// failure prints, or ends the test with a warning when nginx is not
// installed. A macro, since only the test's own body can return from it
// (Catch 2 has no skip). Expands in a Catch test.
#define ACTORCRAWL_LOCAL_NGINX(server, ...)                                  \
  const auto server##_binary = ::actorcrawl::testing::find_nginx();          \
  if (!server##_binary) {                                                    \
    WARN("skipped: nginx is not installed (Debian package nginx)");          \
    return;                                                                  \
  }                                                                          \
  ::actorcrawl::testing::LocalNginx server(*server##_binary, __VA_ARGS__);   \
  INFO("nginx's log: " << server.error_log());                               \
  REQUIRE(server.running())

namespace actorcrawl::testing {

// nginx's path (PATH, then /usr/sbin where Debian installs it); nullopt
// when it is not installed.
std::optional<std::string> find_nginx();

// One line of the access log.
struct NginxRequest {
  std::string method;
  std::string uri;
  std::string host;  // the Host header's name, lowercased, without the port
  int status = 0;
  std::string if_none_match;      // "" when the request had none
  std::string if_modified_since;  // "" when the request had none
  std::string user_agent;
  bool conditional() const { return !if_none_match.empty() || !if_modified_since.empty(); }
};

class LocalNginx {
 public:
  // With `virtual_hosts`, a request is served from root()/<its Host's
  // name> (without the port), so one server stands for many named hosts
  // (reached through the crawl's `resolve`); else from root() itself.
  LocalNginx(const std::string& binary, const std::filesystem::path& dir, bool virtual_hosts = false);
  ~LocalNginx();
  LocalNginx(const LocalNginx&) = delete;
  LocalNginx& operator=(const LocalNginx&) = delete;

  bool running() const { return pid_ > 0; }
  std::string error_log() const;
  std::filesystem::path root() const { return dir_ / "www"; }
  std::string url(const std::string& path) const;
  int port() const { return port_; }
  // Every request logged so far, in order.
  std::vector<NginxRequest> requests() const;

 private:
  void write_config();
  void start(const std::string& binary);
  void stop();

  std::filesystem::path dir_;
  bool virtual_hosts_ = false;
  int port_ = 0;
  pid_t pid_ = -1;
};

// Writes `body` to `file` with its modification time set to `mtime_s` (not
// left to the clock: nginx's ETag is mtime and size, so a file rewritten in
// the same second at the same size would look unchanged).
void write_static_file(const std::filesystem::path& file, const std::string& body, std::int64_t mtime_s);

}  // namespace actorcrawl::testing
