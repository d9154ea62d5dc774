// One writer per database: the lock CrawlStore and JobStore take before
// they open a file (core/store/database_lock.h).
#include "core/store/database_lock.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/store/crawl_reader.h"
#include "core/store/crawl_store.h"
#include "core/store/job_store.h"
#include "tests/unit/temp_database.h"

namespace fs = std::filesystem;
using namespace actorcrawl;

namespace {

using testing::TempDbPath;
using testing::scalar;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// What opening `path` as a second CrawlStore says.
std::string refusal_of(const std::string& path) {
  try {
    CrawlStore second(path);
  } catch (const DatabaseInUse& e) {
    return e.what();
  }
  FAIL("a second CrawlStore opened " << path);
  return {};
}

// A child process that holds the lock of `db_path` until it is killed.
class LockHolderProcess {
 public:
  explicit LockHolderProcess(const std::string& db_path) {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      // No Catch2 in here: take the lock, say so, wait to be killed.
      ::close(ready[0]);
      try {
        DatabaseLock lock(db_path);
        const char ok = 'y';
        if (::write(ready[1], &ok, 1) == 1)
          for (;;)
            ::pause();
      } catch (...) {
      }
      ::_exit(1);
    }
    ::close(ready[1]);
    char got = 0;
    const bool locked = ::read(ready[0], &got, 1) == 1 && got == 'y';
    ::close(ready[0]);
    REQUIRE(locked);
  }
  ~LockHolderProcess() { kill(); }
  pid_t pid() const { return pid_; }
  // SIGKILL, as a crash: the holder gets no chance to clean up.
  void kill() {
    if (pid_ <= 0)
      return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("a second CrawlStore on one database is refused, in the same process too", "[store][lock]") {
  TempDbPath path;
  CrawlStore first(path.str());
  first.add_frontier({FrontierEntry{1, "http://a.test/", 0, ""}});
  first.flush();

  // flock belongs to the open file description: a second open in this
  // process is refused, not granted as a POSIX record lock would be.
  const std::string message = refusal_of(path.str());
  CHECK(contains(message, "database '" + path.str() + "' is already open for writing in this process (pid " +
                            std::to_string(::getpid())));
  // A refused open changes nothing, and the first store goes on writing.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier") == 1);
  first.add_frontier({FrontierEntry{2, "http://a.test/2", 1, "http://a.test/"}});
  first.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier") == 2);
  CHECK(fs::exists(DatabaseLock::lock_path_of(path.str())));
  CHECK(contains(read_text(DatabaseLock::lock_path_of(path.str())), "pid " + std::to_string(::getpid()) + "\n"));
}

TEST_CASE("readers are not bound by the lock", "[store][lock]") {
  TempDbPath path;
  CrawlStore store(path.str());
  PageRow page;
  page.url = "http://a.test/";
  page.host_key = "a.test";
  page.status_code = 200;
  page.fetched_at_ms = 1000;
  store.record_page(page);
  store.flush();
  // The service reads a running job's database; sqlite3 and reports too.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 1);
  CHECK(read_pages(path.str(), 0, 10).total == 1);
  SQLite::Database reader(path.str(), SQLite::OPEN_READONLY);
  CHECK(reader.execAndGet("SELECT url FROM pages").getString() == "http://a.test/");
}

TEST_CASE("the lock ends with its store, and its file goes with it", "[store][lock]") {
  TempDbPath path;
  { CrawlStore store(path.str()); }
  CHECK_FALSE(fs::exists(DatabaseLock::lock_path_of(path.str())));
  CrawlStore again(path.str());
  CHECK(fs::exists(DatabaseLock::lock_path_of(path.str())));
}

TEST_CASE("another process holding the database is named, killed, it leaves no lock", "[store][lock]") {
  TempDbPath path;
  { CrawlStore create(path.str()); }
  LockHolderProcess holder(path.str());

  const std::string message = refusal_of(path.str());
  INFO(message);
  CHECK(contains(message, "database '" + path.str() + "' is in use by another actorcrawl (pid " +
                            std::to_string(holder.pid()) + " on host "));
  CHECK(contains(message, ", started 20"));
  CHECK(contains(message, ", unit_store"));
  CHECK(contains(message, "one process writes a database at a time"));
  CHECK_THROWS_AS(JobStore(path.str()), DatabaseInUse);

  // kill -9: the file stays, but the kernel has dropped the lock.
  holder.kill();
  CHECK(fs::exists(DatabaseLock::lock_path_of(path.str())));
  CrawlStore store(path.str());
  CHECK(contains(read_text(DatabaseLock::lock_path_of(path.str())), "pid " + std::to_string(::getpid()) + "\n"));
}

TEST_CASE("a lock file that is only a file does not stop a writer", "[store][lock]") {
  TempDbPath path;
  // What a crashed holder leaves: its record, but no lock.
  std::ofstream(DatabaseLock::lock_path_of(path.str())) << "pid 999999\nhost elsewhere\nstarted 2020-01-01T00:00:00Z\n"
                                                           "command actorcrawl crawl\n";
  CrawlStore store(path.str());
  const std::string record = read_text(DatabaseLock::lock_path_of(path.str()));
  CHECK(contains(record, "pid " + std::to_string(::getpid()) + "\n"));
  CHECK_FALSE(contains(record, "999999"));
  CHECK_FALSE(contains(record, "elsewhere"));
}

TEST_CASE("a second JobStore on one service.db is refused", "[store][lock]") {
  TempDbPath path;
  JobStore first(path.str());
  CHECK_THROWS_AS(JobStore(path.str()), DatabaseInUse);
  CHECK_THROWS_AS(CrawlStore(path.str()), DatabaseInUse);
  CHECK(first.create("http://a.test/", 1, "{}", "jobs", 1).id == "crawl_1");
}

TEST_CASE("a lock file that cannot be made is a StoreError naming it", "[store][lock]") {
  const std::string path = (fs::temp_directory_path() / "database_lock_no_such_dir_41c2" / "crawl.db").string();
  try {
    DatabaseLock lock(path);
    FAIL("locked " << path);
  } catch (const DatabaseInUse&) {
    FAIL("a missing directory is not a database in use");
  } catch (const StoreError& e) {
    CHECK(std::string{e.what()} == "cannot open database '" + path + "': cannot create its lock file '" + path +
                                     ".lock': No such file or directory");
  }
}
