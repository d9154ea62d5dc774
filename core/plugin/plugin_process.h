// One running plugin program: a child process started with posix_spawnp,
// its stdin, stdout and stderr on pipes. Only the mechanics of a process
// live here (start, write with a deadline, kill, reap); what the lines mean
// and when to restart are external_processor's.
//
// Every descriptor is O_CLOEXEC, and the child gets only its three pipes
// (every other descriptor closed at spawn), so no plugin holds the
// crawler's sockets or database files, and no plugin inherits another's
// pipes (which would keep a dead one's stdout open). The child leads a
// process group of its own: killing the group also kills what the plugin
// started, and the terminal's Ctrl-C reaches the crawler alone, which then
// stops its plugins in order.
//
// Nothing a plugin starts outlives it, nor the plugin the crawler:
//   - each plugin is forked by one thread that lives as long as the process,
//     with PR_SET_PDEATHSIG: the kernel kills it when the crawler ends,
//     however it ends (a crash, kill -9, a forced stop);
//   - its environment carries a mark of its own (kPluginMarkerVariable),
//     which what it starts inherits: killing the plugin kills its group and
//     every process that carries the mark, so a child that left the group
//     (setsid, a daemon) goes too. (A descendant that clears its
//     environment escapes the mark; one that outlives a crash of the
//     crawler is not found either: a cgroup per plugin would catch both,
//     and needs a delegation the crawler cannot count on.)
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

// A program that could not be started (not found, not executable), with
// the system's reason.
class PluginSpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The environment variable that marks a plugin and what it starts.
inline constexpr const char* kPluginMarkerVariable = "ACTORCRAWL_PLUGIN_MARK";

// SIGKILL to every process of this user whose environment holds
// kPluginMarkerVariable=`marker` (read from /proc).
void kill_marked_processes(const std::string& marker);

class PluginProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `argv` (argv[0] searched in PATH when it has no '/'; relative
  // paths from the working directory) with the crawler's environment, its
  // PYTHONPATH led by `python_path` when that is not empty. Throws
  // PluginSpawnError.
  explicit PluginProcess(const std::vector<std::string>& argv, const std::vector<std::string>& python_path = {});
  // Kills the group and reaps the child if that has not been done.
  ~PluginProcess();
  PluginProcess(const PluginProcess&) = delete;
  PluginProcess& operator=(const PluginProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }

  enum class WriteResult { written, closed, deadline };
  // Writes all of `bytes` to the child's stdin, waiting in poll() for room
  // until `deadline`: a plugin that stops reading cannot hold a caller
  // longer. `closed`: the child closed its stdin (or it was closed here).
  // SIGPIPE is blocked in the calling thread for the write and a pending
  // one taken back, so the process keeps its own disposition. One writer
  // at a time (the caller serializes).
  WriteResult write_all(std::string_view bytes, Clock::time_point deadline);
  // Whether the child has read everything written to its stdin so far
  // (nothing waits in the pipe).
  bool stdin_drained() const;
  // Closes stdin: the plugin reads end of file, its cue to exit.
  void close_stdin();

  // SIGKILL to the child's process group (nothing once it is reaped: its
  // pid may then be another process's) and to every process that carries
  // its mark. Safe from any thread.
  void kill_group();
  // Reaps the child if it has exited; true once reaped. Safe from any thread.
  bool try_reap();
  // Reaps the child if it exits by `deadline` (looked for every 10 ms);
  // true once reaped. Safe from any thread.
  bool reaped_by(Clock::time_point deadline);
  // Waits for the child to exit and reaps it. Call after kill_group(), or
  // when the child is known to be exiting.
  void reap();
  // Only after reaping: "exited with status N", "killed by signal N (name)".
  std::string exit_description() const;

 private:
  pid_t pid_ = -1;
  std::string marker_;  // its kPluginMarkerVariable value
  // A kill and a reap never cross: the pid is only signalled while the
  // child (or its zombie) still holds it.
  mutable std::mutex reap_mutex_;
  bool reaped_ = false;
  int wait_status_ = 0;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
};

}  // namespace actorcrawl
