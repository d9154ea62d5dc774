#include "tests/support/local_nginx.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace actorcrawl::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
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

std::string read_text(const fs::path& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// nginx logs an absent header as "-".
std::string header_value(const std::string& logged) { return logged == "-" ? std::string{} : logged; }

}  // namespace

std::optional<std::string> find_nginx() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream in{path};
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty())
        dirs.push_back(dir);
  }
  dirs.push_back("/usr/sbin");
  for (const auto& dir : dirs) {
    const std::string candidate = dir + "/nginx";
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

LocalNginx::LocalNginx(const std::string& binary, const fs::path& dir, bool virtual_hosts)
    : dir_(dir), virtual_hosts_(virtual_hosts) {
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

LocalNginx::~LocalNginx() { stop(); }

std::string LocalNginx::error_log() const { return read_text(dir_ / "error.log") + read_text(dir_ / "stdout.log"); }

std::string LocalNginx::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<NginxRequest> LocalNginx::requests() const {
  std::vector<NginxRequest> out;
  std::ifstream in{dir_ / "access.log"};
  for (std::string line; std::getline(in, line);) {
    // Fields split by a tab, which nginx escapes inside values.
    std::vector<std::string> fields;
    std::stringstream split{line};
    for (std::string field; std::getline(split, field, '\t');)
      fields.push_back(field);
    if (fields.size() != 7)
      continue;  // a line being written
    NginxRequest r;
    r.method = fields[0];
    r.uri = fields[1];
    r.status = std::atoi(fields[2].c_str());
    r.if_none_match = header_value(fields[3]);
    r.if_modified_since = header_value(fields[4]);
    r.user_agent = header_value(fields[5]);
    r.host = fields[6];
    out.push_back(std::move(r));
  }
  return out;
}

void LocalNginx::write_config() {
  const std::string d = dir_.string();
  std::ofstream conf{dir_ / "nginx.conf"};
  conf << "daemon off;\n"
       << "master_process off;\n"
       << "pid " << d << "/nginx.pid;\n"
       << "error_log " << d << "/error.log warn;\n"
       << "events { worker_connections 256; }\n"
       << "http {\n"
       << "  log_format crawl '$request_method\\t$uri\\t$status\\t$http_if_none_match\\t"
          "$http_if_modified_since\\t$http_user_agent\\t$host';\n"
       << "  access_log " << d << "/access.log crawl;\n"
       << "  default_type text/html;\n"
       << "  types { text/html html; text/plain txt; }\n"
       << "  if_modified_since exact;\n"
       << "  etag on;\n";
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    conf << "  " << t << "_temp_path " << d << "/tmp/" << t << ";\n";
  conf << "  server {\n"
       << "    listen 127.0.0.1:" << port_ << ";\n"
       << "    root " << d << (virtual_hosts_ ? "/www/$host" : "/www") << ";\n"
       << "  }\n"
       << "}\n";
}

void LocalNginx::start(const std::string& binary) {
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

void LocalNginx::stop() {
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

void write_static_file(const fs::path& file, const std::string& body, std::int64_t mtime_s) {
  {
    std::ofstream out{file, std::ios::binary | std::ios::trunc};
    out << body;
  }
  const timespec times[2] = {{mtime_s, 0}, {mtime_s, 0}};
  if (::utimensat(AT_FDCWD, file.c_str(), times, 0) != 0)
    throw std::runtime_error("cannot set the time of " + file.string());
}

}  // namespace actorcrawl::testing
