#include "core/crawl/kept_body.h"

#include <libdeflate.h>

#include <stdexcept>

namespace actorcrawl {

namespace {

constexpr std::string_view kDeflate = "deflate";
constexpr std::string_view kIdentity = "identity";

// One compressor and decompressor per thread: the Processor's lanes keep
// bodies side by side, and allocating libdeflate's state per page would
// cost more than compressing a small page.
struct Codec {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(1);
  libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
  ~Codec() {
    libdeflate_free_compressor(compressor);
    libdeflate_free_decompressor(decompressor);
  }
};

Codec& codec() {
  thread_local Codec c;
  if (c.compressor == nullptr || c.decompressor == nullptr)
    throw std::runtime_error("libdeflate: cannot allocate its state");
  return c;
}

std::optional<std::string> failed(KeptBodyError error, KeptBodyError* why) {
  if (why != nullptr)
    *why = error;
  return std::nullopt;
}

}  // namespace

const char* to_string(KeptBodyError error) {
  switch (error) {
    case KeptBodyError::none: return "none";
    case KeptBodyError::unknown_encoding: return "unknown_encoding";
    case KeptBodyError::too_large: return "too_large";
    case KeptBodyError::corrupt: return "corrupt";
    case KeptBodyError::wrong_size: return "wrong_size";
  }
  return "unknown";
}

KeptBody keep_body(std::string_view body) {
  KeptBody kept;
  kept.size = static_cast<std::int64_t>(body.size());
  Codec& c = codec();
  std::string out(libdeflate_deflate_compress_bound(c.compressor, body.size()), '\0');
  const std::size_t n = libdeflate_deflate_compress(c.compressor, body.data(), body.size(), out.data(), out.size());
  if (n == 0 || n >= body.size()) {
    kept.encoding = kIdentity;
    kept.data.assign(body);
    return kept;
  }
  out.resize(n);
  out.shrink_to_fit();
  kept.encoding = kDeflate;
  kept.data = std::move(out);
  return kept;
}

std::optional<std::string> open_kept_body(const KeptBody& kept, std::int64_t max_size, KeptBodyError* why) {
  if (why != nullptr)
    *why = KeptBodyError::none;
  if (kept.encoding != kDeflate && kept.encoding != kIdentity)
    return failed(KeptBodyError::unknown_encoding, why);
  if (kept.size < 0 || kept.size > max_size)
    return failed(KeptBodyError::too_large, why);
  if (kept.encoding == kIdentity) {
    if (static_cast<std::int64_t>(kept.data.size()) != kept.size)
      return failed(KeptBodyError::wrong_size, why);
    return kept.data;
  }
  std::string out(static_cast<std::size_t>(kept.size), '\0');
  std::size_t produced = 0;
  // The output buffer is the stated size: libdeflate stops at its end
  // (LIBDEFLATE_INSUFFICIENT_SPACE) rather than inflate past it.
  switch (libdeflate_deflate_decompress(codec().decompressor, kept.data.data(), kept.data.size(), out.data(),
                                        out.size(), &produced)) {
    case LIBDEFLATE_SUCCESS: break;
    case LIBDEFLATE_INSUFFICIENT_SPACE: return failed(KeptBodyError::wrong_size, why);
    default: return failed(KeptBodyError::corrupt, why);
  }
  if (produced != out.size())
    return failed(KeptBodyError::wrong_size, why);
  return out;
}

}  // namespace actorcrawl
