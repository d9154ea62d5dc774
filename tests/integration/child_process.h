// An actorcrawl process started by a test: its output goes to a file the
// test can search while it runs, and it can be signalled (SIGKILL, SIGSTOP)
// and waited for with a deadline. A process still running when the object
// goes away is killed, so a failing test leaves nothing behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace actorcrawl::testing {

class ChildProcess {
 public:
  // Runs `program` with `args`; stdout and stderr go to `log_path`.
  ChildProcess(const std::string& program, const std::vector<std::string>& args, std::string log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // The exit code (128 + signal for a signalled end), or nullopt if the
  // process is still running after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  bool running();

  std::string output() const;
  // Waits until the output contains `text`; false after `timeout`.
  bool wait_for_output(const std::string& text, std::chrono::milliseconds timeout) const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::string log_path_;
};

// The port a coordinator printed ("listening on HOST:PORT"); 0 if none.
int coordinator_port(const std::string& output);

}  // namespace actorcrawl::testing
