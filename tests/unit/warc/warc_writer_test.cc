// The archive's files: names, the warcinfo that opens each, rotation,
// appends from many threads, the repair of a torn tail, and a directory
// that cannot be written.
#include "core/warc/warc_writer.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <thread>

#include "tests/unit/warc/warc_files.h"

namespace fs = std::filesystem;
using namespace actorcrawl;
using testing::read_warc_file;
using testing::TempDir;

namespace {

WarcWriter::Settings settings_for(const std::string& dir, std::int64_t max_bytes = 1 << 20) {
  WarcWriter::Settings s;
  s.dir = dir;
  s.prefix = "test-crawl";
  s.max_file_bytes = max_bytes;
  s.warcinfo_fields = {{"software", "actorcrawl/test"}};
  return s;
}

// A resource record with `size` bytes that do not compress.
WarcRecord record(const std::string& warcinfo_id, std::size_t size, std::uint32_t seed) {
  std::mt19937 rng{seed};
  WarcRecord r;
  r.fields = {{"WARC-Type", "resource"}, {"WARC-Record-ID", new_record_id()}, {"WARC-Warcinfo-ID", warcinfo_id}};
  r.block.resize(size);
  for (auto& c : r.block)
    c = static_cast<char>(rng());
  return r;
}

// RLIMIT_FSIZE for a scope, standing in for a full disk: a write past it
// fails (EFBIG) after writing what fits, as ENOSPC does (SIGXFSZ ignored
// meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGXFSZ, &ignore, &previous_);
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    applied_ = ::setrlimit(RLIMIT_FSIZE, &limited) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::sigaction(SIGXFSZ, &previous_, nullptr);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool applied() const { return applied_; }

 private:
  struct sigaction previous_ {};
  rlimit saved_{};
  bool applied_ = false;
};

WarcWriter::Build one(std::size_t size, std::uint32_t seed = 1) {
  return [=](const std::string& id) { return std::vector<WarcRecord>{record(id, size, seed)}; };
}

}  // namespace

TEST_CASE("a file is named prefix-timestamp-serial-random and opens with warcinfo", "[warc]") {
  TempDir dir{"warc_name"};
  WarcWriter w{settings_for(dir.str())};
  REQUIRE(w.append(one(100)).empty());
  const std::string name = fs::path(w.current_path()).filename().string();
  CHECK(std::regex_match(name, std::regex{R"(test-crawl-20\d{12}-00000-[0-9a-f]{6}\.warc\.gz)"}));
  const auto records = read_warc_file(w.current_path());
  REQUIRE(records.size() == 2);
  CHECK(records[0].field("WARC-Type") == "warcinfo");
  CHECK(records[0].field("WARC-Filename") == name);
  CHECK(records[0].block == "software: actorcrawl/test\r\n");
  CHECK(records[1].field("WARC-Warcinfo-ID") == records[0].field("WARC-Record-ID"));
}

TEST_CASE("files rotate before a record would pass the size limit", "[warc]") {
  TempDir dir{"warc_rotate"};
  const std::int64_t limit = 4000;
  WarcWriter w{settings_for(dir.str(), limit)};
  for (std::uint32_t i = 0; i < 10; ++i)
    REQUIRE(w.append(one(1500, i)).empty());
  // A record bigger than the limit gets a file to itself.
  REQUIRE(w.append(one(6000, 99)).empty());
  const auto files = WarcWriter::files_in(dir.str(), "test-crawl");
  CHECK(files == w.paths());
  REQUIRE(files.size() == 6);  // two 1500-byte records fit a file, then one alone
  std::size_t records = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto read = read_warc_file(files[i]);
    CHECK(read[0].field("WARC-Type") == "warcinfo");
    for (std::size_t j = 1; j < read.size(); ++j)
      CHECK(read[j].field("WARC-Warcinfo-ID") == read[0].field("WARC-Record-ID"));
    records += read.size() - 1;
    if (i + 1 < files.size())
      CHECK(static_cast<std::int64_t>(fs::file_size(files[i])) <= limit);
    CHECK(fs::path(files[i]).filename().string().find("-0000" + std::to_string(i) + "-") != std::string::npos);
  }
  CHECK(records == 11);
  CHECK(fs::file_size(files.back()) > 6000);
}

TEST_CASE("appends from many threads are whole records, each in the file of its warcinfo", "[warc]") {
  TempDir dir{"warc_threads"};
  WarcWriter w{settings_for(dir.str(), 20000)};
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::uint32_t i = 0; i < 100; ++i)
        CHECK(w.append([&](const std::string& id) {
                 return std::vector<WarcRecord>{record(id, 300, t * 1000 + i), record(id, 200, t * 1000 + i + 1)};
               }).empty());
    });
  for (auto& t : threads)
    t.join();
  std::size_t records = 0;
  for (const auto& f : WarcWriter::files_in(dir.str(), "test-crawl")) {
    const auto read = read_warc_file(f);
    REQUIRE(read[0].field("WARC-Type") == "warcinfo");
    for (std::size_t j = 1; j < read.size(); ++j)
      CHECK(read[j].field("WARC-Warcinfo-ID") == read[0].field("WARC-Record-ID"));
    CHECK((read.size() - 1) % 2 == 0);  // the pairs were never split
    records += read.size() - 1;
  }
  CHECK(records == 800);
}

TEST_CASE("a torn tail is cut on open, and a new file follows the last serial", "[warc]") {
  TempDir dir{"warc_torn"};
  std::string first;
  std::int64_t whole = 0;
  {
    WarcWriter w{settings_for(dir.str())};
    for (std::uint32_t i = 0; i < 3; ++i)
      REQUIRE(w.append(one(500, i)).empty());
    first = w.current_path();
    whole = static_cast<std::int64_t>(fs::file_size(first));
  }
  // What kill -9 in the middle of a write leaves: half a member.
  const std::string member = gzip_member(record("<x>", 800, 7).serialize());
  {
    std::ofstream out(first, std::ios::binary | std::ios::app);
    out << member.substr(0, member.size() / 2);
  }
  REQUIRE_THROWS(read_warc_file(first));
  // Searched from the tail (the default), the last whole record is found
  // without reading the file from its start; with a window too small for
  // one record, the whole file is read. Both cut at the same byte.
  const std::string copy = dir.str() + "/copy.bin";
  fs::copy_file(first, copy);
  const TailRepair full = repair_warc_tail(copy, 16);
  CHECK(full.kept_bytes == whole);
  CHECK(full.members == 4);  // warcinfo and three records, all read
  WarcWriter again{settings_for(dir.str())};
  CHECK(again.repaired().kept_bytes == whole);
  CHECK(again.repaired().cut_bytes == static_cast<std::int64_t>(member.size() / 2));
  CHECK(again.repaired().members == 1);  // only the last record was read
  CHECK(static_cast<std::int64_t>(fs::file_size(first)) == whole);
  CHECK(read_warc_file(first).size() == 4);
  CHECK(fs::path(again.current_path()).filename().string().find("-00001-") != std::string::npos);
}

TEST_CASE("a file with nothing whole in it is removed, garbage after members is cut", "[warc]") {
  TempDir dir{"warc_garbage"};
  fs::create_directories(dir.str());
  const std::string torn = dir.str() + "/test-crawl-20260101000000-00004-abcdef.warc.gz";
  const std::string member = gzip_member("WARC/1.1\r\n");
  std::ofstream(torn, std::ios::binary) << member.substr(0, 10);
  const TailRepair r = repair_warc_tail(torn);
  CHECK(r.removed);
  CHECK(r.cut_bytes == 10);
  CHECK_FALSE(fs::exists(torn));

  std::ofstream(torn, std::ios::binary) << member << "not gzip at all";
  const TailRepair g = repair_warc_tail(torn);
  CHECK(g.members == 1);
  CHECK(g.cut_bytes == 15);
  CHECK(g.kept_bytes == static_cast<std::int64_t>(member.size()));
  CHECK(fs::file_size(torn) == member.size());
}

TEST_CASE("a warc_dir that cannot be a directory is a named error", "[warc]") {
  TempDir dir{"warc_bad"};
  fs::create_directories(dir.str());
  const std::string file = dir.str() + "/plain-file";
  std::ofstream(file) << "x";
  try {
    WarcWriter w{settings_for(file + "/sub")};
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string{e.what()}.find("warc_dir '" + file + "/sub'") == 0);
  }
}

TEST_CASE("a write that fails (the disk is full) leaves no torn record, and later appends work", "[warc]") {
  TempDir dir{"warc_full"};
  WarcWriter w{settings_for(dir.str())};
  REQUIRE(w.append(one(500, 1)).empty());
  const auto before = fs::file_size(w.current_path());
  std::string error;
  {
    FileSizeLimit full_disk(before + 100);
    REQUIRE(full_disk.applied());
    error = w.append(one(5000, 2));
  }
  CHECK(error.find("cannot write to " + w.current_path() + ": File too large") == 0);
  CHECK(fs::file_size(w.current_path()) == before);  // the part that fit was cut off
  REQUIRE(w.append(one(500, 3)).empty());
  CHECK(read_warc_file(w.current_path()).size() == 3);
}

TEST_CASE("a new file takes its name only once its warcinfo is whole, and unfinished ones a kill left are deleted", "[warc]") {
  TempDir dir{"warc_unfinished"};
  fs::create_directories(dir.str());
  // What a kill between creating a file and writing its warcinfo leaves:
  // a hidden file, empty or holding part of the warcinfo.
  const std::string empty = dir.str() + "/.test-crawl-20260101000000-00003-abcdef.warc.gz.part";
  const std::string half = dir.str() + "/.test-crawl-20260101000000-00004-abcdef.warc.gz.part";
  std::ofstream(empty, std::ios::binary).flush();
  std::ofstream(half, std::ios::binary) << gzip_member("WARC/1.1\r\n").substr(0, 10);
  // One another live crawl is writing: it holds the lock.
  const std::string busy = dir.str() + "/.test-crawl-20260101000000-00005-fedcba.warc.gz.part";
  std::ofstream(busy, std::ios::binary).flush();
  const int held = ::open(busy.c_str(), O_RDONLY);
  REQUIRE(::flock(held, LOCK_EX | LOCK_NB) == 0);
  // Neither another prefix's nor a name that is not a part file.
  const std::string other = dir.str() + "/.other-20260101000000-00001-abcdef.warc.gz.part";
  const std::string notes = dir.str() + "/.notes.part";
  std::ofstream(other).flush();
  std::ofstream(notes).flush();
  {
    WarcWriter w{settings_for(dir.str())};
    CHECK(w.unfinished_removed() == 2);
    CHECK_FALSE(fs::exists(empty));
    CHECK_FALSE(fs::exists(half));
    CHECK(fs::exists(busy));
    CHECK(fs::exists(other));
    CHECK(fs::exists(notes));
    // The writer's own file is under its name, with its warcinfo, and no
    // part file of its own is left behind.
    const auto files = WarcWriter::files_in(dir.str(), "test-crawl");
    REQUIRE(files.size() == 1);
    CHECK(files[0] == w.current_path());
    CHECK(read_warc_file(w.current_path()).at(0).field("WARC-Type") == "warcinfo");
    std::size_t parts = 0;
    for (const auto& e : fs::directory_iterator(dir.str()))
      parts += e.path().extension() == ".part";
    CHECK(parts == 3);  // busy, other, notes
    // The file's lock was taken before it had its name: another writer's
    // repair leaves it alone.
    CHECK(repair_warc_tail(w.current_path()).in_use);
  }
  ::close(held);
  WarcWriter again{settings_for(dir.str())};
  CHECK(again.unfinished_removed() == 1);
  CHECK_FALSE(fs::exists(busy));
}

TEST_CASE("a start that cannot write the warcinfo leaves neither the file nor its hidden part", "[warc]") {
  TempDir dir{"warc_no_info"};
  fs::create_directories(dir.str());
  std::string error;
  {
    FileSizeLimit full_disk(10);  // less than any warcinfo
    REQUIRE(full_disk.applied());
    try {
      WarcWriter w{settings_for(dir.str())};
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
  }
  CHECK(error.find("warc_dir '" + dir.str() + "': cannot write test-crawl-") == 0);
  CHECK(error.find(": File too large") != std::string::npos);
  CHECK(fs::is_empty(dir.str()));
}
