// A std::ostream's bytes sent as the chunks of a streamed response
// (a ChunkSink, service/http_response.h): what lets code that writes to a stream (an export)
// answer a request without building the body in memory. Bytes go out in
// pieces of 64 KiB; once the client is gone every write fails, so the
// writer stops.
#pragma once

#include <array>
#include <streambuf>

#include "service/http_response.h"

namespace actorcrawl {

class ChunkStreamBuf final : public std::streambuf {
 public:
  explicit ChunkStreamBuf(ChunkSink& sink) : sink_(sink) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

 protected:
  int_type overflow(int_type c) override {
    if (!send())
      return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return send() ? 0 : -1; }

 private:
  bool send() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    if (failed_)
      return false;
    if (n > 0 && !sink_.write(buffer_.data(), n))
      failed_ = true;
    return !failed_;
  }

  ChunkSink& sink_;
  std::array<char, 64 * 1024> buffer_{};
  bool failed_ = false;
};

}  // namespace actorcrawl
