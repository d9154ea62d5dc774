#include "core/plugin/plugin_process.h"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace actorcrawl {
namespace {

using Clock = PluginProcess::Clock;

TEST_CASE("a program that is not there cannot start, and says why", "[plugin]") {
  try {
    PluginProcess p({"actorcrawl-no-such-plugin-program"});
    FAIL("started");
  } catch (const PluginSpawnError& e) {
    CHECK(std::string{e.what()}.find("No such file") != std::string::npos);
  }
  CHECK_THROWS_AS(PluginProcess({}), PluginSpawnError);
}

TEST_CASE("a child's exit status is read, and it is reaped", "[plugin]") {
  pid_t pid = 0;
  {
    PluginProcess p({"sh", "-c", "exit 7"});
    pid = p.pid();
    p.reap();
    CHECK(p.exit_description() == "exited with status 7");
  }
  CHECK(::kill(pid, 0) == -1);
  CHECK(errno == ESRCH);
}

TEST_CASE("a killed child says which signal", "[plugin]") {
  PluginProcess p({"sleep", "600"});
  p.kill_group();
  p.reap();
  CHECK(p.exit_description().rfind("killed by signal 9", 0) == 0);
  p.kill_group();  // reaped: nothing to signal
}

TEST_CASE("a child that does not read its stdin cannot hold a writer past the deadline", "[plugin]") {
  PluginProcess p({"sleep", "600"});
  const std::string big(4 << 20, 'x');  // far more than a pipe holds
  const auto result = p.write_all(big, Clock::now() + std::chrono::milliseconds(200));
  CHECK(result == PluginProcess::WriteResult::deadline);
  CHECK_FALSE(p.stdin_drained());
}  // the destructor kills and reaps it

TEST_CASE("writing to a child that is gone reports closed, and SIGPIPE does not end this process", "[plugin]") {
  PluginProcess p({"sh", "-c", "exec 0<&-; exit 0"});
  p.reap();
  const auto result = p.write_all("hello\n", Clock::now() + std::chrono::seconds(30));
  CHECK(result == PluginProcess::WriteResult::closed);
  sigset_t pending;
  sigemptyset(&pending);
  ::sigpending(&pending);
  CHECK(sigismember(&pending, SIGPIPE) == 0);
}

TEST_CASE("a reader of stdin drains it", "[plugin]") {
  PluginProcess p({"cat"});
  REQUIRE(p.write_all("line\n", Clock::now() + std::chrono::seconds(30)) == PluginProcess::WriteResult::written);
  char buffer[16];
  const ssize_t n = ::read(p.stdout_fd(), buffer, sizeof buffer);  // cat has read it once it echoes it
  CHECK(n == 5);
  CHECK(p.stdin_drained());
  p.close_stdin();
  p.reap();
  CHECK(p.exit_description() == "exited with status 0");
}

}  // namespace
}  // namespace actorcrawl
