// Conditional requests against a real server's validators: nginx serving a
// static file on loopback answers 304 to the ETag and to the Last-Modified
// the engine captured from it, and 200 once the file has changed. nginx
// compares If-Modified-Since exactly (`if_modified_since exact`), so this
// also proves the date goes back as the server wrote it. Skipped, with a
// warning, where nginx is not installed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/fetch/fetch_engine.h"
#include "core/fetch/http_date.h"

extern char** environ;

using namespace actorcrawl;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::optional<std::string> find_nginx() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream in{path};
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty())
        dirs.push_back(dir);
  }
  // Debian installs it in sbin, which a user's PATH may lack.
  dirs.push_back("/usr/sbin");
  for (const auto& dir : dirs) {
    const std::string candidate = dir + "/nginx";
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

std::string read_file(const fs::path& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// nginx in the foreground as one process (no master, no workers, so no
// user switch and one pid to stop), its files in a temporary directory,
// serving `root` on 127.0.0.1.
class LocalNginx {
 public:
  LocalNginx(const std::string& binary, const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_ / "www");
    fs::create_directories(dir_ / "tmp");
    // A port taken between the probe and nginx's bind fails the start;
    // another port is tried.
    for (int attempt = 0; attempt < 3 && pid_ < 0; ++attempt) {
      port_ = unused_port();
      write_config();
      start(binary);
    }
  }
  ~LocalNginx() { stop(); }

  bool running() const { return pid_ > 0; }
  std::string error_log() const { return read_file(dir_ / "error.log") + read_file(dir_ / "stdout.log"); }
  fs::path root() const { return dir_ / "www"; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  void write_config() {
    const std::string d = dir_.string();
    std::ofstream conf{dir_ / "nginx.conf"};
    conf << "daemon off;\n"
         << "master_process off;\n"
         << "pid " << d << "/nginx.pid;\n"
         << "error_log " << d << "/error.log warn;\n"
         << "events { worker_connections 64; }\n"
         << "http {\n"
         << "  access_log off;\n"
         << "  default_type text/html;\n"
         << "  if_modified_since exact;\n"
         << "  etag on;\n";
    for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
      conf << "  " << t << "_temp_path " << d << "/tmp/" << t << ";\n";
    conf << "  server {\n"
         << "    listen 127.0.0.1:" << port_ << ";\n"
         << "    root " << d << "/www;\n"
         << "  }\n"
         << "}\n";
  }

  void start(const std::string& binary) {
    const std::string d = dir_.string();
    const std::string conf = d + "/nginx.conf";
    const std::string log = d + "/error.log";
    const std::string out = d + "/stdout.log";
    std::vector<std::string> args = {binary, "-p", d + "/", "-c", conf, "-e", log};
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
      return;
    pid_ = pid;
    const auto deadline = Clock::now() + 5s;
    while (Clock::now() < deadline) {
      if (accepts_connections(port_))
        return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // it gave up (a port taken, a bad config)
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(10ms);
    }
    stop();
  }

  void stop() {
    if (pid_ <= 0)
      return;
    ::kill(pid_, SIGTERM);
    const auto deadline = Clock::now() + 5s;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(10ms);
    }
    pid_ = -1;
  }

  fs::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

void write_page(const fs::path& file, const std::string& body, std::int64_t mtime_s) {
  {
    std::ofstream out{file, std::ios::binary | std::ios::trunc};
    out << body;
  }
  // Set, not left to the clock: nginx's ETag is mtime and size, so a file
  // rewritten within the same second at the same size would look unchanged.
  timespec times[2] = {{mtime_s, 0}, {mtime_s, 0}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
}

FetchOutcome fetch(FetchEngine& engine, FetchRequest request) {
  engine.start(std::move(request));
  std::vector<FetchOutcome> done;
  const auto deadline = Clock::now() + 5s;
  while (done.empty() && Clock::now() < deadline)
    for (auto& out : engine.perform(50ms))
      done.push_back(std::move(out));
  REQUIRE(done.size() == 1);
  return std::move(done.front());
}

FetchRequest request_for(const std::string& url, std::uint64_t token) {
  for (const char* var : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
    ::unsetenv(var);
  FetchRequest r;
  r.token = token;
  r.url = url;
  r.timeout_ms = 3000;
  r.max_redirects = 0;
  r.user_agent = "actorcrawl-test/1.0";
  return r;
}

}  // namespace

TEST_CASE("conditional: nginx answers 304 to its own ETag and Last-Modified, 200 once the file changed",
          "[fetch][conditional][nginx]") {
  const auto nginx = find_nginx();
  if (!nginx) {
    WARN("skipped: nginx is not installed (Debian package nginx)");
    return;
  }
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
  LocalNginx server(*nginx, dir);
  INFO("nginx's log: " << server.error_log());
  REQUIRE(server.running());

  const fs::path file = server.root() / "page.html";
  const std::int64_t t1 = 1600000000;  // 2020-09-13T12:26:40Z
  write_page(file, "<html>version one</html>", t1);
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
  write_page(file, "<html>version two, longer</html>", t1 + 3600);
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
