#include "core/warc/warc_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/clock/clock.h"
#include "core/clock/utc_time.h"

namespace actorcrawl {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

// "<prefix>-<14 digits>-<serial>-<random>.warc.gz": the serial, or -1.
std::int64_t serial_of(const std::string& name, const std::string& prefix) {
  const std::string suffix = ".warc.gz";
  if (name.size() <= prefix.size() + suffix.size() + 1 || name.compare(0, prefix.size() + 1, prefix + "-") != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  std::string rest = name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - suffix.size());
  // timestamp-serial-random: the prefix itself may hold dashes, the rest not.
  const auto first = rest.find('-');
  const auto last = rest.rfind('-');
  if (first == std::string::npos || first == last || first != 14)
    return -1;
  const std::string serial = rest.substr(first + 1, last - first - 1);
  if (serial.empty() || serial.size() > 12 || serial.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(serial);
}

// write(2) until done; the bytes written, short only on an error.
std::size_t write_fully(int fd, const std::string& bytes, int* error) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      *error = errno;
      return done;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// The hidden name a file has until its warcinfo is whole.
std::string unfinished_name(const std::string& name) { return "." + name + ".part"; }

// Deletes the unfinished files of `prefix` a stopped crawl left in `dir`
// (each holds at most part of a warcinfo); one another live crawl is still
// writing holds its lock and is left alone. How many were deleted.
std::int64_t remove_unfinished(const std::string& dir, const std::string& prefix) {
  std::int64_t removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".part";
    if (name.size() <= 1 + suffix.size() || name[0] != '.' ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        serial_of(name.substr(1, name.size() - 1 - suffix.size()), prefix) < 0)
      continue;
    const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(entry.path().c_str()) == 0)
      ++removed;
    ::close(fd);
  }
  return removed;
}

}  // namespace

namespace {

// A record's header block is read from its first inflated bytes, up to
// this much: more than any header the writer makes (a URL is at most
// max_url_length, 1,000,000 bytes), so a member that inflates to no end of
// header is not read whole into memory.
constexpr std::size_t kMaxHeadBytes = 4u << 20;

// The first bytes a member inflates to, up to the end of its WARC header
// block (or kMaxHeadBytes).
class RecordHead {
 public:
  void add(const unsigned char* data, std::size_t size) {
    if (complete_)
      return;
    // The blank line may straddle two pieces; nothing before them is searched again.
    const std::size_t search_from = text_.size() < 3 ? 0 : text_.size() - 3;
    text_.append(reinterpret_cast<const char*>(data), std::min(size, kMaxHeadBytes - text_.size()));
    complete_ = text_.size() == kMaxHeadBytes || text_.find("\r\n\r\n", search_from) != std::string::npos;
  }
  // The value of header field `name`; "" when the head has none.
  std::string field(std::string_view name) const {
    const std::string key = "\r\n" + std::string{name} + ": ";
    const auto header_end = text_.find("\r\n\r\n");
    const auto at = text_.find(key);
    if (at == std::string::npos || header_end == std::string::npos || at > header_end)
      return {};
    const auto value = at + key.size();
    return text_.substr(value, text_.find("\r\n", value) - value);
  }
  void clear() {
    text_.clear();
    complete_ = false;
  }

 private:
  std::string text_;
  bool complete_ = false;
};

// Where a file may end so that no request is kept without the response (or
// revisit) written with it: docs/warc.md promises "the pair is whole or
// absent". The writer appends a request and then its partner in one write,
// so a torn write can leave the request whole and its partner cut; the
// request then has to go too. Fed each whole member in file order.
class PairBoundary {
 public:
  // `start`: where the members fed begin (the file before it is whole).
  explicit PairBoundary(std::int64_t start) : end_(start) {}

  // One more whole member, ending at `end`, whose record's head is `head`.
  void member(const RecordHead& head, std::int64_t end) {
    awaited_.erase(head.field("WARC-Record-ID"));
    if (head.field("WARC-Type") == "request") {
      const std::string partner = head.field("WARC-Concurrent-To");
      if (!partner.empty())
        awaited_.insert(partner);
    }
    if (awaited_.empty())
      end_ = end;
  }
  // After the last member no request waits for.
  std::int64_t end() const { return end_; }

 private:
  std::int64_t end_;
  std::set<std::string> awaited_;  // partners named by requests and not yet read
};

// Where the whole gzip members that follow `from` in `data` end: inflates
// member after member (CRC checked) until the data ends or a member is torn
// or not gzip. `members` counts the whole ones; `pairs` is fed each, with
// its end as an offset from `data`.
struct MemberRun {
  std::size_t end = 0;
  std::int64_t members = 0;
  bool warc_first = false;  // the first member inflates to "WARC/1.1\r\n..."
};

MemberRun whole_members(const unsigned char* data, std::size_t size, std::size_t from, PairBoundary& pairs) {
  MemberRun run;
  run.end = from;
  RecordHead head;
  z_stream z{};
  inflateInit2(&z, 15 + 16);
  unsigned char out[1 << 15];
  std::size_t pos = from;
  while (pos < size) {
    z.next_in = const_cast<unsigned char*>(data + pos);
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(size - pos, 1u << 30));
    bool first_output = true;
    int rc = Z_OK;
    while (rc == Z_OK) {
      z.next_out = out;
      z.avail_out = sizeof out;
      rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t produced = sizeof out - z.avail_out;
      head.add(out, produced);
      if (run.members == 0 && first_output) {
        run.warc_first = produced >= 10 && std::memcmp(out, "WARC/1.1\r\n", 10) == 0;
        first_output = produced == 0;
      }
    }
    if (rc != Z_STREAM_END)
      break;  // torn, or not gzip
    pos = static_cast<std::size_t>(z.next_in - data);
    run.end = pos;
    ++run.members;
    pairs.member(head, static_cast<std::int64_t>(pos));
    head.clear();
    inflateReset(&z);
  }
  inflateEnd(&z);
  return run;
}

// The tail search: the last `window` bytes of the file, and in them the
// latest offset where a whole member holding a WARC record starts. Every
// member this writer makes starts 1f 8b 08; the bytes can also occur inside
// compressed data, but a false start does not inflate to a record with a
// valid CRC. nullopt when the window holds no such start (one record larger
// than the window): the caller scans the whole file.
std::optional<TailRepair> repair_from_tail(int fd, std::int64_t file_size, std::size_t window) {
  const std::int64_t base = std::max<std::int64_t>(0, file_size - static_cast<std::int64_t>(window));
  std::vector<unsigned char> tail(static_cast<std::size_t>(file_size - base));
  std::size_t got = 0;
  while (got < tail.size()) {
    const ssize_t n = ::pread(fd, tail.data() + got, tail.size() - got, base + static_cast<std::int64_t>(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  for (std::size_t i = tail.size() >= 3 ? tail.size() - 3 + 1 : 0; i-- > 0;) {
    if (tail[i] != 0x1f || tail[i + 1] != 0x8b || tail[i + 2] != 0x08)
      continue;
    // Offsets from the window's start; what precedes `i` is taken as whole.
    PairBoundary pairs(static_cast<std::int64_t>(i));
    const MemberRun run = whole_members(tail.data(), tail.size(), i, pairs);
    if (run.members == 0 || !run.warc_first)
      continue;
    TailRepair r;
    r.kept_bytes = base + pairs.end();
    r.members = run.members;  // counted from this start only
    return r;
  }
  if (base == 0) {
    TailRepair nothing;  // the whole file holds no whole record
    return nothing;
  }
  return std::nullopt;
}

// The whole file, member by member from the start, streamed.
TailRepair repair_from_start(int fd, const std::string& path) {
  TailRepair r;
  ::lseek(fd, 0, SEEK_SET);
  z_stream z{};
  inflateInit2(&z, 15 + 16);
  std::vector<unsigned char> in(1 << 16), out(1 << 16);
  std::int64_t fed = 0;  // file bytes given to zlib
  bool broken = false;
  RecordHead head;
  PairBoundary pairs(0);
  for (;;) {
    const ssize_t n = ::read(fd, in.data(), in.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const int e = errno;
      inflateEnd(&z);
      throw std::runtime_error("WARC file '" + path + "': cannot read: " + errno_text(e));
    }
    if (n == 0)
      break;
    fed += n;
    z.next_in = in.data();
    z.avail_in = static_cast<uInt>(n);
    while (z.avail_in > 0 && !broken) {
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_NO_FLUSH);
      head.add(out.data(), out.size() - z.avail_out);
      if (rc == Z_STREAM_END) {
        pairs.member(head, fed - z.avail_in);
        head.clear();
        ++r.members;
        inflateReset(&z);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        broken = true;  // not gzip from here on: cut
      }
    }
    if (broken)
      break;
  }
  inflateEnd(&z);
  r.kept_bytes = pairs.end();
  return r;
}

}  // namespace

TailRepair repair_warc_tail(const std::string& path, std::size_t window) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("WARC file '" + path + "': cannot open: " + errno_text(errno));
  // A writer holds its file locked: a file another live crawl appends to is
  // not torn, only unfinished.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    TailRepair busy;
    busy.in_use = true;
    return busy;
  }
  struct stat st{};
  ::fstat(fd, &st);
  const auto size = static_cast<std::int64_t>(st.st_size);
  TailRepair r;
  try {
    auto from_tail = repair_from_tail(fd, size, window);
    r = from_tail ? *from_tail : repair_from_start(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  r.cut_bytes = size - r.kept_bytes;
  if (r.cut_bytes > 0 && ::ftruncate(fd, r.kept_bytes) != 0) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error("WARC file '" + path + "': cannot cut its torn tail: " + errno_text(e));
  }
  ::close(fd);
  if (r.kept_bytes == 0) {
    std::filesystem::remove(path);
    r.removed = true;
  }
  return r;
}

std::vector<std::string> WarcWriter::files_in(const std::string& dir, const std::string& prefix) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (const auto serial = serial_of(name, prefix); serial >= 0)
      found.emplace_back(serial, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found)
    out.push_back(std::move(f.second));
  return out;
}

WarcWriter::WarcWriter(Settings settings) : settings_(std::move(settings)) {
  const std::string& dir = settings_.dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("warc_dir '" + dir + "': cannot create it: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec))
    throw std::runtime_error("warc_dir '" + dir + "': not a directory");
  unfinished_removed_ = remove_unfinished(dir, settings_.prefix);
  const auto existing = files_in(dir, settings_.prefix);
  if (!existing.empty()) {
    // Only the newest file was being appended to when a crawl stopped.
    repaired_ = repair_warc_tail(existing.back());
    next_serial_ = serial_of(std::filesystem::path(existing.back()).filename().string(), settings_.prefix) + 1;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  start_file();
}

WarcWriter::~WarcWriter() {
  if (fd_ >= 0)
    ::close(fd_);
}

void WarcWriter::start_file() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  const std::int64_t now = epoch_ms();
  char serial[16];
  std::snprintf(serial, sizeof serial, "%05lld", static_cast<long long>(next_serial_++));
  // The random part keeps two processes that share a directory (and a
  // second) from choosing one name; the link below refuses it if they still do.
  const std::string id = new_record_id();
  const std::string name = settings_.prefix + "-" + utc_digits(now / 1000) + "-" + serial + "-" + id.substr(10, 6) + ".warc.gz";
  const std::filesystem::path dir(settings_.dir);
  const std::string path = (dir / name).string();
  // The file is written under a hidden name and given its own once its
  // warcinfo is whole, so a kill between creating and writing it never
  // leaves a WARC file with no record in it (a reader would take it for a
  // corrupt archive, and the next start would delete it).
  const std::string part = (dir / unfinished_name(name)).string();
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("warc_dir '" + settings_.dir + "': cannot create " + name + ": " + errno_text(errno));
  // The lock is the inode's: it holds under the file's final name too.
  ::flock(fd, LOCK_EX | LOCK_NB);
  const auto give_up = [&](const std::string& what, int e) {
    ::close(fd);
    ::unlink(part.c_str());
    throw std::runtime_error("warc_dir '" + settings_.dir + "': cannot " + what + " " + name + ": " + errno_text(e));
  };
  warcinfo_id_ = new_record_id();
  const std::string info =
    gzip_member(warcinfo_record(warcinfo_id_, now, name, settings_.warcinfo_fields).serialize());
  int error = 0;
  if (write_fully(fd, info, &error) != info.size())
    give_up("write", error);
  // link(2) refuses a name that exists, as O_EXCL would; a file system with
  // no hard links gets a rename, whose name the random part keeps unique.
  if (::link(part.c_str(), path.c_str()) == 0) {
    ::unlink(part.c_str());
  } else if (errno == EEXIST || ::rename(part.c_str(), path.c_str()) != 0) {
    give_up("create", errno);
  }
  fd_ = fd;
  file_bytes_ = static_cast<std::int64_t>(info.size());
  file_records_ = 0;
  ++generation_;
  paths_.push_back(path);
}

std::string WarcWriter::append(const Build& build) {
  for (;;) {
    std::string warcinfo_id;
    std::uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      warcinfo_id = warcinfo_id_;
      generation = generation_;
    }
    std::string bytes;
    std::int64_t records = 0;
    for (const auto& record : build(warcinfo_id)) {
      bytes += gzip_member(record.serialize());
      ++records;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_)
      continue;  // another thread rotated: these refer to the old warcinfo
    if (fd_ < 0) {
      // The last rotation could not start a file (a full disk): try again,
      // so archiving resumes once there is room.
      try {
        start_file();
      } catch (const std::exception& e) {
        return e.what();
      }
      continue;
    }
    if (file_records_ > 0 && file_bytes_ + static_cast<std::int64_t>(bytes.size()) > settings_.max_file_bytes) {
      try {
        start_file();
      } catch (const std::exception& e) {
        return e.what();
      }
      continue;
    }
    int error = 0;
    const std::size_t written = write_fully(fd_, bytes, &error);
    if (written != bytes.size()) {
      // A torn member would end the file for every reader: cut it off.
      if (written > 0 && ::ftruncate(fd_, file_bytes_) != 0)
        return "cannot write to " + paths_.back() + " (" + errno_text(error) + ") nor cut the torn record off";
      return "cannot write to " + paths_.back() + ": " + errno_text(error);
    }
    file_bytes_ += static_cast<std::int64_t>(bytes.size());
    file_records_ += records;
    return {};
  }
}

std::string WarcWriter::current_path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paths_.empty() ? std::string{} : paths_.back();
}

std::vector<std::string> WarcWriter::paths() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paths_;
}

}  // namespace actorcrawl
