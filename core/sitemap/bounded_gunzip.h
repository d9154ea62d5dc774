// Gzip (RFC 1952) decompressed as the bytes arrive, with a hard cap on what
// comes out: a sitemap may be 50 MB uncompressed, and a gzip bomb (a
// kilobyte that inflates to a gigabyte) must cost no more than an honest
// file of that size. Decompression stops as soon as the output passes the
// cap, so its memory is zlib's window and one output chunk, and its CPU
// time is that of the capped output.
//
// Several members one after another (what `pigz` and concatenated .gz files
// give) are one stream. Bytes after a complete member that do not start
// another one (padding, trailing garbage) are ignored, as gzip -d does.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace actorcrawl {

class BoundedGunzip {
 public:
  // Output is handed out in pieces of at most this many bytes.
  static constexpr std::size_t kOutputChunk = 64 * 1024;

  enum class Status {
    ok,
    corrupt,    // not gzip, or damaged deflate data or checksum
    over_cap,   // more than max_output bytes would come out
    truncated,  // finish() in the middle of a member
  };

  // The next piece of output. Returning false stops decompression (the
  // reader downstream has failed): feed() returns at once.
  using Sink = std::function<bool(std::string_view)>;

  // The gzip magic (1f 8b) at the start of `head`.
  static bool is_gzip(std::string_view head);

  explicit BoundedGunzip(std::uint64_t max_output);
  ~BoundedGunzip();
  BoundedGunzip(const BoundedGunzip&) = delete;
  BoundedGunzip& operator=(const BoundedGunzip&) = delete;

  // Decompresses `input`; the output goes to `sink`. Once a call returns
  // anything but ok (or the sink stopped it), later calls do nothing and
  // return the same status. Of an over_cap stream, the first max_output
  // bytes have gone to the sink.
  Status feed(std::string_view input, const Sink& sink);
  // The end of the input: truncated when a member is still open.
  Status finish();

  Status status() const { return status_; }
  // zlib's words for a corrupt stream, or "".
  const char* message() const { return zs_.msg != nullptr ? zs_.msg : ""; }
  std::uint64_t input_bytes() const { return input_bytes_; }    // compressed bytes read
  std::uint64_t output_bytes() const { return output_bytes_; }  // bytes handed to the sink
  // Bytes this object holds: the output buffer and zlib's state and window.
  std::size_t retained_bytes() const;

 private:
  z_stream zs_{};
  bool initialized_ = false;
  bool member_open_ = false;  // input read since the last member ended
  bool ignoring_rest_ = false;
  std::uint64_t members_done_ = 0;
  bool stopped_ = false;      // the sink said stop
  std::uint64_t max_output_;
  std::uint64_t input_bytes_ = 0;
  std::uint64_t output_bytes_ = 0;
  Status status_ = Status::ok;
  unsigned char out_[kOutputChunk];
};

}  // namespace actorcrawl
