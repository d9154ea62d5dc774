#include "core/plugin/plugin_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
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

// The program's path: as given when it names one ("./x", "/usr/bin/x"),
// else the first executable of that name in PATH (as execvp would look,
// but before the fork: the child may only make async-signal-safe calls).
std::string resolved_program(const std::string& program) {
  if (program.find('/') != std::string::npos)
    return program;
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + program;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

// Every plugin is started by one thread that lives as long as the process:
// the child asks the kernel to kill it when that thread ends
// (PR_SET_PDEATHSIG names the thread that forked, not the process), which
// is when the crawler ends, however it ends (a crash, kill -9, a forced
// stop), so no plugin outlives it. fork and execve rather than
// posix_spawn, which has no way to ask for that.
class Spawner {
 public:
  struct Request {
    std::string path;
    std::vector<std::string> argv;
    std::vector<std::string> env;
    int stdin_fd, stdout_fd, stderr_fd;  // the child's ends
  };

  static Spawner& instance() {
    static Spawner* spawner = new Spawner;  // never destroyed: its thread must outlive every plugin
    return *spawner;
  }

  // The child's pid, or throws PluginSpawnError with the system's reason.
  pid_t spawn(const Request& request) {
    std::packaged_task<pid_t()> task([&request] { return fork_and_exec(request); });
    auto result = task.get_future();
    {
      std::lock_guard<std::mutex> lock{mutex_};
      queue_.push_back(std::move(task));
    }
    wake_.notify_one();
    return result.get();
  }

 private:
  Spawner() { std::thread([this] { run(); }).detach(); }

  void run() {
    for (;;) {
      std::packaged_task<pid_t()> task;
      {
        std::unique_lock<std::mutex> lock{mutex_};
        wake_.wait(lock, [this] { return !queue_.empty(); });
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  static pid_t fork_and_exec(const Request& r) {
    std::vector<char*> args;
    for (const auto& a : r.argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& e : r.env)
      envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    // exec's failure comes back through this pipe; its write end closes at
    // a successful exec (close-on-exec).
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
      throw PluginSpawnError(std::string{"cannot make a pipe: "} + std::strerror(errno));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int e = errno;
      ::close(report[0]);
      ::close(report[1]);
      throw PluginSpawnError(std::string{"cannot fork: "} + std::strerror(e));
    }
    if (pid == 0) {
      // Only async-signal-safe calls from here to execve.
      ::setpgid(0, 0);  // a group of its own: killed as a whole; Ctrl-C reaches the crawler alone
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent)
        ::_exit(127);  // the crawler ended before the line above
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      for (const int sig : {SIGPIPE, SIGINT, SIGTERM})
        ::sigaction(sig, &dfl, nullptr);
      ::dup2(r.stdin_fd, STDIN_FILENO);
      ::dup2(r.stdout_fd, STDOUT_FILENO);
      ::dup2(r.stderr_fd, STDERR_FILENO);
      // Only its three pipes (and the report pipe, until the exec).
      if (report[1] > 3)
        ::close_range(3, static_cast<unsigned>(report[1] - 1), 0);
      ::close_range(static_cast<unsigned>(report[1] + 1), ~0U, 0);
      ::execve(r.path.c_str(), args.data(), envp.data());
      const int e = errno;
      [[maybe_unused]] const ssize_t ignored = ::write(report[1], &e, sizeof e);
      ::_exit(127);
    }
    ::close(report[1]);
    int exec_errno = 0;
    ssize_t n;
    do {
      n = ::read(report[0], &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    ::close(report[0]);
    if (n == static_cast<ssize_t>(sizeof exec_errno)) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw PluginSpawnError(std::strerror(exec_errno));
    }
    return pid;
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<pid_t()>> queue_;
};

// The environment a plugin starts with: the crawler's, with `marker` added
// and PYTHONPATH led by `dirs`.
std::vector<std::string> plugin_environment(const std::vector<std::string>& dirs, const std::string& marker) {
  std::vector<std::string> env;
  std::string path;
  for (const auto& dir : dirs)
    path += (path.empty() ? "" : ":") + dir;
  bool had_path = false;
  const std::string mark_prefix = std::string{kPluginMarkerVariable} + "=";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry{*e};
    if (entry.rfind(mark_prefix, 0) == 0)
      continue;  // a crawler run by a plugin gives its plugins marks of their own
    if (!path.empty() && entry.rfind("PYTHONPATH=", 0) == 0) {
      const std::string before = entry.substr(11);
      entry = "PYTHONPATH=" + path + (before.empty() ? "" : ":" + before);
      had_path = true;
    }
    env.push_back(std::move(entry));
  }
  if (!path.empty() && !had_path)
    env.push_back("PYTHONPATH=" + path);
  env.push_back(mark_prefix + marker);
  return env;
}

// A mark no other plugin has: this process, a counter, and the time.
std::string new_marker() {
  static std::atomic<std::uint64_t> next{1};
  return std::to_string(::getpid()) + "-" + std::to_string(next++) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

void kill_marked_processes(const std::string& marker) {
  const std::string wanted = std::string{kPluginMarkerVariable} + "=" + marker;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr)
    return;
  const pid_t self = ::getpid();
  std::string environment;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self)
      continue;
    // Another user's process is not readable: not ours anyway.
    const int fd = ::open(("/proc/" + std::string{entry->d_name} + "/environ").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    environment.clear();
    char buffer[8192];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && environment.size() < (std::size_t{1} << 20))
      environment.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    // Entries are NUL-separated; the mark is a whole entry.
    for (std::size_t at = 0; at < environment.size();) {
      const std::size_t stop = std::min(environment.find('\0', at), environment.size());
      if (std::string_view(environment).substr(at, stop - at) == wanted) {
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        break;
      }
      at = stop + 1;
    }
  }
  ::closedir(proc);
}

PluginProcess::PluginProcess(const std::vector<std::string>& argv, const std::vector<std::string>& python_path)
    : marker_(new_marker()) {
  if (argv.empty() || argv.front().empty())
    throw PluginSpawnError("no program to run");
  const std::string path = resolved_program(argv.front());
  if (path.empty())
    throw PluginSpawnError(std::strerror(ENOENT));
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
  try {
    pid_ = Spawner::instance().spawn(Spawner::Request{path, argv, plugin_environment(python_path, marker_),
                                                      in.read_end, out.write_end, err.write_end});
  } catch (...) {
    for (int* fd : {&in.read_end, &in.write_end, &out.read_end, &out.write_end, &err.read_end, &err.write_end})
      close_fd(*fd);
    pid_ = -1;
    throw;
  }
  close_fd(in.read_end);
  close_fd(out.write_end);
  close_fd(err.write_end);
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
  {
    std::lock_guard<std::mutex> lock{reap_mutex_};
    if (pid_ > 0 && !reaped_) {
      // The group first (what the plugin started); the child itself too, in
      // case it left the group.
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
    }
  }
  // What left the group (a setsid() child, a daemon) still carries the mark.
  if (pid_ > 0)
    kill_marked_processes(marker_);
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

bool PluginProcess::reaped_by(Clock::time_point deadline) {
  while (!try_reap()) {
    if (Clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  return true;
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
