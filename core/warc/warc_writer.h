// The archive's files: <dir>/<prefix>-<UTC timestamp>-<serial>-<random>.warc.gz,
// each opened by a warcinfo record and rotated before a record would take
// it past max_file_bytes.
//
// Crash safety: a new file is written under a hidden name
// (".<name>.part") and linked to its own name once its warcinfo is whole,
// so no file of the archive is ever empty. Every record is one gzip member
// compressed in memory, and the records of one append (a request and its
// response) go out in one write, so after kill -9 a file ends with whole
// records and at most one torn write: maybe a whole request whose response
// is torn. Opening a directory repairs the newest file (repair_warc_tail)
// before a new file is started.
//
// Several threads may append at once: records are built and compressed by
// the caller's thread, outside the lock; only the write is serialized.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/warc/warc_record.h"

namespace actorcrawl {

// What repairing a file found.
struct TailRepair {
  std::int64_t kept_bytes = 0;  // the whole gzip members, from the start, up to the last whole pair
  std::int64_t cut_bytes = 0;   // the torn tail removed after them (with a request whose partner it tore)
  std::int64_t members = 0;     // whole members read (those of the tail searched)
  bool removed = false;         // nothing whole was left: the file was deleted
  bool in_use = false;          // another process holds the file: left alone
};

// Truncates `path` after its last whole gzip member (inflated and its CRC
// checked), and further back to the end of the last whole request/response
// pair: a request whose WARC-Concurrent-To partner is not whole after it is
// cut too, so the pair is whole or absent. Only the last `window` bytes are
// read when the start of a whole record is found in them (a resume does not
// inflate a 1 GiB file); the whole file otherwise. Throws std::runtime_error naming the file when it
// cannot be read or truncated.
constexpr std::size_t kRepairWindowBytes = 8u << 20;
TailRepair repair_warc_tail(const std::string& path, std::size_t window = kRepairWindowBytes);

class WarcWriter {
 public:
  struct Settings {
    std::string dir = "warc";
    std::string prefix = "actorcrawl";
    std::int64_t max_file_bytes = 1LL << 30;
    // The warcinfo block's lines ("software", "format", ...).
    std::vector<std::pair<std::string, std::string>> warcinfo_fields;
  };

  // Creates the directory, repairs its newest file of this prefix and starts
  // a new one. Throws std::runtime_error naming the directory and the reason
  // when it cannot be written.
  explicit WarcWriter(Settings settings);
  ~WarcWriter();
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Builds records for the current file's warcinfo id, compresses them and
  // appends them with one write (so a request and its response land in one
  // file, whole or not at all). `build` may run again when another thread
  // rotated the file meanwhile. Returns "" or what failed (a full disk): the
  // file is then cut back to where it was.
  using Build = std::function<std::vector<WarcRecord>(const std::string& warcinfo_id)>;
  std::string append(const Build& build);

  std::string current_path() const;
  std::vector<std::string> paths() const;  // every file this writer started
  const TailRepair& repaired() const { return repaired_; }
  // Unfinished files (a new file's hidden name, before its warcinfo was
  // whole) a stopped crawl left, deleted when this writer opened the directory.
  std::int64_t unfinished_removed() const { return unfinished_removed_; }

  // Names of files of `prefix` in `dir`, by serial.
  static std::vector<std::string> files_in(const std::string& dir, const std::string& prefix);

 private:
  void start_file();  // with mutex_ held

  Settings settings_;
  mutable std::mutex mutex_;
  int fd_ = -1;
  std::int64_t file_bytes_ = 0;
  std::int64_t file_records_ = 0;  // records after the warcinfo
  std::int64_t next_serial_ = 0;
  std::uint64_t generation_ = 0;   // which file: bumped on rotation
  std::string warcinfo_id_;
  std::vector<std::string> paths_;
  TailRepair repaired_;
  std::int64_t unfinished_removed_ = 0;
};

}  // namespace actorcrawl
