#include "core/plugin/plugin_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace actorcrawl {

namespace {

// A pipe whose ends are both close-on-exec and above the standard
// descriptors: an end numbered 0, 1 or 2 (a crawler started with one of
// them closed) would be the very descriptor dup2 targets, and dup2 onto
// itself keeps close-on-exec, so the child would lose it at exec.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
};

int above_standard_fds(int fd) {
  if (fd > 2)
    return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return moved;
}

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw PluginSpawnError(std::string{"cannot make a pipe: "} + std::strerror(errno));
  Pipe p{above_standard_fds(fds[0]), above_standard_fds(fds[1])};
  if (p.read_end < 0 || p.write_end < 0) {
    const int saved = errno;
    if (p.read_end >= 0)
      ::close(p.read_end);
    if (p.write_end >= 0)
      ::close(p.write_end);
    throw PluginSpawnError(std::string{"cannot make a pipe: "} + std::strerror(saved));
  }
  return p;
}

void close_fd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    ::posix_spawnattr_init(&attributes);
    ::posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// The crawler's environment with `dirs` first on PYTHONPATH (before what
// it held), as "NAME=value" strings; empty when there is nothing to add
// (the environment is then passed as it is).
std::vector<std::string> environment_with_python_path(const std::vector<std::string>& dirs) {
  std::vector<std::string> env;
  if (dirs.empty())
    return env;
  std::string path;
  for (const auto& dir : dirs)
    path += (path.empty() ? "" : ":") + dir;
  bool had = false;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry{*e};
    if (entry.rfind("PYTHONPATH=", 0) == 0) {
      const std::string before = entry.substr(11);
      entry = "PYTHONPATH=" + path + (before.empty() ? "" : ":" + before);
      had = true;
    }
    env.push_back(std::move(entry));
  }
  if (!had)
    env.push_back("PYTHONPATH=" + path);
  return env;
}

}  // namespace

PluginProcess::PluginProcess(const std::vector<std::string>& argv, const std::vector<std::string>& python_path) {
  if (argv.empty() || argv.front().empty())
    throw PluginSpawnError("no program to run");
  Pipe in = make_pipe();
  Pipe out, err;
  try {
    out = make_pipe();
    err = make_pipe();
  } catch (...) {
    close_fd(in.read_end);
    close_fd(in.write_end);
    close_fd(out.read_end);
    close_fd(out.write_end);
    throw;
  }

  SpawnSetup setup;
  ::posix_spawn_file_actions_adddup2(&setup.actions, in.read_end, STDIN_FILENO);
  ::posix_spawn_file_actions_adddup2(&setup.actions, out.write_end, STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&setup.actions, err.write_end, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // Descriptors someone opened without O_CLOEXEC (a library's) stay here.
  ::posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);
#endif
  // The plugin starts with no signal blocked (the spawning thread may block
  // some) and SIGPIPE at its default, whatever this process does with it.
  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  ::posix_spawnattr_setsigmask(&setup.attributes, &no_signals);
  ::posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  ::posix_spawnattr_setpgroup(&setup.attributes, 0);
  ::posix_spawnattr_setflags(&setup.attributes,
                             POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // glibc's posix_spawnp reports a failed exec (ENOENT, EACCES, ENOEXEC)
  // here, rather than as a child that exits with 127.
  const std::vector<std::string> env = environment_with_python_path(python_path);
  std::vector<char*> env_pointers;
  for (const auto& entry : env)
    env_pointers.push_back(const_cast<char*>(entry.c_str()));
  env_pointers.push_back(nullptr);
  char** child_environment = env.empty() ? environ : env_pointers.data();
  const int rc = ::posix_spawnp(&pid_, args[0], &setup.actions, &setup.attributes, args.data(), child_environment);
  close_fd(in.read_end);
  close_fd(out.write_end);
  close_fd(err.write_end);
  if (rc != 0) {
    close_fd(in.write_end);
    close_fd(out.read_end);
    close_fd(err.read_end);
    pid_ = -1;
    throw PluginSpawnError(std::string{std::strerror(rc)});
  }
  stdin_fd_ = in.write_end;
  stdout_fd_ = out.read_end;
  stderr_fd_ = err.read_end;
  // Writes wait in poll() against a deadline, never in write().
  ::fcntl(stdin_fd_, F_SETFL, ::fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
}

PluginProcess::~PluginProcess() {
  if (pid_ > 0) {
    kill_group();
    reap();
  }
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

PluginProcess::WriteResult PluginProcess::write_all(std::string_view bytes, Clock::time_point deadline) {
  if (stdin_fd_ < 0)
    return WriteResult::closed;
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t previous_mask;
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous_mask);
  sigset_t pending;
  sigemptyset(&pending);
  ::sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;

  WriteResult result = WriteResult::written;
  bool broken_pipe = false;
  while (!bytes.empty()) {
    const ssize_t n = ::write(stdin_fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EPIPE) {
      broken_pipe = true;
      result = WriteResult::closed;
      break;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      result = WriteResult::closed;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result = WriteResult::deadline;
      break;
    }
    pollfd p{stdin_fd_, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(std::min<long long>(left + 1, 60'000)));
  }

  if (broken_pipe && !was_pending) {
    // The SIGPIPE this write raised, taken back before unblocking.
    const timespec no_wait{0, 0};
    ::sigtimedwait(&pipe_signal, nullptr, &no_wait);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  return result;
}

bool PluginProcess::stdin_drained() const {
  if (stdin_fd_ < 0)
    return true;
  int waiting = 0;
  // Linux answers FIONREAD on either end of a pipe: the bytes in it.
  if (::ioctl(stdin_fd_, FIONREAD, &waiting) != 0)
    return false;
  return waiting == 0;
}

void PluginProcess::close_stdin() { close_fd(stdin_fd_); }

void PluginProcess::kill_group() {
  std::lock_guard<std::mutex> lock{reap_mutex_};
  if (pid_ > 0 && !reaped_) {
    // The group first (what the plugin started); the child itself too, in
    // case it left the group.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}

bool PluginProcess::try_reap() {
  std::lock_guard<std::mutex> lock{reap_mutex_};
  if (reaped_ || pid_ <= 0)
    return reaped_;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    reaped_ = true;
    wait_status_ = status;
  }
  return reaped_;
}

void PluginProcess::reap() {
  if (pid_ <= 0)
    return;
  {
    std::lock_guard<std::mutex> lock{reap_mutex_};
    if (reaped_)
      return;
  }
  // Wait for the exit without reaping, so the pid stays the child's (a
  // zombie) while kill_group() may still be called; then reap under the lock.
  siginfo_t info{};
  int r = 0;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  if (try_reap())
    return;
  // waitid failed otherwise (it should not): wait and reap in one step.
  std::lock_guard<std::mutex> lock{reap_mutex_};
  int status = 0;
  pid_t w;
  do {
    w = ::waitpid(pid_, &status, 0);
  } while (w < 0 && errno == EINTR);
  reaped_ = true;
  wait_status_ = status;
}

std::string PluginProcess::exit_description() const {
  std::lock_guard<std::mutex> lock{reap_mutex_};
  if (WIFEXITED(wait_status_))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    const char* name = ::sigdescr_np(sig);
    return "killed by signal " + std::to_string(sig) + (name ? std::string{" ("} + name + ")" : std::string{});
  }
  return "ended";
}

}  // namespace actorcrawl
