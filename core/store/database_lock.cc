#include "core/store/database_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/clock/utc_time.h"
#include "core/store/store_error.h"

namespace actorcrawl {

namespace {

// What a lock file says of its holder; any field may be missing. Read only
// to be shown in a message.
struct Holder {
  std::string pid, host, started, command;
};

// Printable ASCII only, and not much of it: the text comes from a file
// anyone who can write the directory could have written.
std::string printable(const std::string& text, std::size_t max = 200) {
  std::string out;
  for (char c : text.substr(0, max))
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0)
    return {};
  return printable(buf);
}

// The program's name and its subcommand ("actorcrawl crawl"), never the
// rest of the command line: a --token would end up in a file others read.
std::string own_command() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string program = all.substr(0, all.find('\0'));
  std::string command = program.substr(program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1);
  if (program.size() < all.size()) {
    const std::string first = all.substr(program.size() + 1);
    const std::string arg = first.substr(0, first.find('\0'));
    if (!arg.empty() && arg[0] != '-')
      command += " " + arg;
  }
  return printable(command);
}

std::string record_of_this_process() {
  return "pid " + std::to_string(::getpid()) + "\nhost " + host_name() + "\nstarted " + iso8601_utc_seconds(std::time(nullptr)) + "\ncommand " +
         own_command() + "\n";
}

Holder parse_holder(const std::string& text) {
  Holder h;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const std::size_t space = line.find(' ');
    if (space != std::string::npos) {
      const std::string key = line.substr(0, space);
      const std::string value = printable(line.substr(space + 1));
      if (key == "pid" && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos)
        h.pid = value;
      else if (key == "host")
        h.host = value;
      else if (key == "started")
        h.started = value;
      else if (key == "command")
        h.command = value;
    }
    start = end + 1;
  }
  return h;
}

std::string read_record(int fd) {
  char buf[4096];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string{};
}

// The holder writes its record just after it takes the lock; a writer
// refused in between waits a moment for it.
Holder read_holder(int fd) {
  for (int attempt = 0;; ++attempt) {
    Holder h = parse_holder(read_record(fd));
    if (!h.pid.empty() || attempt == 20)
      return h;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
}

std::string in_use_message(const std::string& db_path, const std::string& lock_path, const Holder& h) {
  const std::string subject = "database '" + db_path + "'";
  if (h.pid.empty())
    return subject + " is in use by another actorcrawl (its lock file '" + lock_path +
           "' does not say which); one process writes a database at a time";
  std::string who = "pid " + h.pid;
  if (!h.host.empty())
    who += " on host " + h.host;
  if (!h.started.empty())
    who += ", started " + h.started;
  if (!h.command.empty())
    who += ", " + h.command;
  if (h.pid == std::to_string(::getpid()) && h.host == host_name())
    return subject + " is already open for writing in this process (" + who + ")";
  return subject + " is in use by another actorcrawl (" + who + "); one process writes a database at a time";
}

std::string cannot_lock(const std::string& db_path, const std::string& what, int err) {
  return "cannot open database '" + db_path + "': " + what + ": " + std::strerror(err);
}

}  // namespace

std::string DatabaseLock::lock_path_of(const std::string& db_path) { return db_path + ".lock"; }

DatabaseLock::DatabaseLock(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:")
    return;
  lock_path_ = lock_path_of(db_path);
  for (int attempt = 0;; ++attempt) {
    // O_NOFOLLOW: the file is truncated below, so a link planted in its
    // place must not make that hit another file.
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw StoreError(cannot_lock(db_path, "cannot create its lock file '" + lock_path_ + "'", errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const Holder holder = read_holder(fd);
        ::close(fd);
        throw DatabaseInUse(in_use_message(db_path, lock_path_, holder));
      }
      ::close(fd);
      if (err == EINTR)
        continue;
      throw StoreError(cannot_lock(db_path, "cannot lock '" + lock_path_ + "'", err));
    }
    // A holder releasing the lock removes the file while it still holds it,
    // so the file locked here may no longer be the one the path names (or
    // the path may name a new one another writer holds): only a lock on
    // the file the path names now counts.
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      fd_ = fd;
      break;
    }
    ::close(fd);
    if (attempt == 100)
      throw StoreError("cannot open database '" + db_path + "': its lock file '" + lock_path_ +
                       "' keeps being replaced");
  }
  // The record is for the messages of refused writers only: failing to
  // write it (a full disk) leaves the lock working, and they say so.
  const std::string record = record_of_this_process();
  const bool written = ::ftruncate(fd_, 0) == 0 &&
                       ::pwrite(fd_, record.data(), record.size(), 0) == static_cast<ssize_t>(record.size());
  (void)written;
}

DatabaseLock::~DatabaseLock() {
  if (fd_ < 0)
    return;
  // Removed while still held (see the constructor's check), so no file is
  // left behind and no writer can take a lock on a file about to go.
  ::unlink(lock_path_.c_str());
  ::close(fd_);
}

}  // namespace actorcrawl
