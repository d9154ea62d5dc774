#include "core/sitemap/bounded_gunzip.h"

#include <algorithm>

namespace actorcrawl {

bool BoundedGunzip::is_gzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

BoundedGunzip::BoundedGunzip(std::uint64_t max_output) : max_output_(max_output) {
  // 16 + 15: a gzip wrapper (not zlib's, not raw deflate), the largest
  // window, so any gzip file decodes.
  initialized_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;
  if (!initialized_) status_ = Status::corrupt;
}

BoundedGunzip::~BoundedGunzip() {
  if (initialized_) inflateEnd(&zs_);
}

std::size_t BoundedGunzip::retained_bytes() const {
  // zlib's inflate state (about 7 KiB) and its 32 KiB window.
  return sizeof(*this) + 7 * 1024 + (1u << MAX_WBITS);
}

BoundedGunzip::Status BoundedGunzip::feed(std::string_view input, const Sink& sink) {
  if (status_ != Status::ok || stopped_ || ignoring_rest_) return status_;
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs_.avail_in = 0;
  // Fed in pieces of at most 1 GiB so that avail_in (an unsigned int)
  // holds them.
  std::size_t left = input.size();
  // Set when inflate filled the output buffer: it may hold more output
  // even with no input left.
  bool full = false;
  while (true) {
    if (zs_.avail_in == 0 && left > 0) {
      const std::size_t piece = std::min<std::size_t>(left, std::size_t{1} << 30);
      zs_.avail_in = static_cast<uInt>(piece);
      left -= piece;
    }
    if (zs_.avail_in == 0 && !full) return status_;
    // One byte more than the cap leaves room for, to see whether the
    // stream goes past it.
    const std::uint64_t room = max_output_ - output_bytes_ + 1;
    zs_.next_out = out_;
    zs_.avail_out = static_cast<uInt>(std::min<std::uint64_t>(kOutputChunk, room));
    const uInt in_before = zs_.avail_in;
    const uInt out_before = zs_.avail_out;
    const bool at_member_start = !member_open_;
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    input_bytes_ += in_before - zs_.avail_in;
    const std::size_t made = out_before - zs_.avail_out;
    full = zs_.avail_out == 0;
    if (rc == Z_DATA_ERROR && at_member_start && members_done_ > 0) {
      // Not the start of another member: the rest is ignored.
      ignoring_rest_ = true;
      return status_;
    }
    if (in_before != zs_.avail_in) member_open_ = true;
    if (made > 0) {
      const bool over = output_bytes_ + made > max_output_;
      const std::size_t give = over ? made - 1 : made;
      output_bytes_ += give;
      if (give > 0 && !sink(std::string_view(reinterpret_cast<const char*>(out_), give))) {
        stopped_ = true;
        return status_;
      }
      if (over) return status_ = Status::over_cap;
    }
    if (rc == Z_STREAM_END) {
      member_open_ = false;
      ++members_done_;
      inflateReset(&zs_);
    } else if (rc == Z_BUF_ERROR) {
      // No progress is possible without more input.
      if (zs_.avail_in != 0) return status_ = Status::corrupt;
    } else if (rc != Z_OK) {
      return status_ = Status::corrupt;
    }
  }
}

BoundedGunzip::Status BoundedGunzip::finish() {
  if (status_ == Status::ok && !stopped_ && member_open_) status_ = Status::truncated;
  return status_;
}

}  // namespace actorcrawl
