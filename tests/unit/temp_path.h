// Test support: a scratch path unique to this process and test, removed at
// scope exit together with the side files SQLite keeps beside a database
// (and the lock file a writer keeps there, database_lock.h); and a scratch
// directory, removed with all it holds.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace actorcrawl::testing {

class TempPath {
 public:
  // The file name is "actorcrawl_<stem>_<pid>_<n>_<clock><extension>" in the
  // system's temporary directory; nothing is created until a test writes it.
  TempPath(std::string_view stem, std::string_view extension) {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = (std::filesystem::temp_directory_path() /
             ("actorcrawl_" + std::string{stem} + "_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter++) + "_" + std::to_string(stamp) + std::string{extension}))
                .string();
  }
  ~TempPath() {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", "-journal", ".lock"})
      std::filesystem::remove(path_ + suffix, ignored);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;

  const std::string& str() const { return path_; }
  // Replaces the file's content with `text`.
  void write(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }

 private:
  std::string path_;
};

// A directory path unique to this process and test; nothing is created
// until a test makes it. Removed at scope exit with all it holds (its
// permissions restored first, for tests that take them away).
class TempDir {
 public:
  explicit TempDir(const std::string& stem) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("actorcrawl_" + stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())))
              .string();
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& str() const { return path_; }
  // `name` inside the directory.
  std::string path(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

}  // namespace actorcrawl::testing
