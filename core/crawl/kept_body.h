// Bodies kept in the crawl database (keep_bodies), so that extraction rules
// and processors can run again over stored pages without a request.
//
// Raw DEFLATE at libdeflate's level 1, the warc processor's choice for the
// same reason: a whole body is one buffer, and at this level crawled HTML
// compresses to about a quarter at a small fraction of a page's CPU
// (docs/performance.md, "Keeping bodies"). A body that would not shrink
// (an image, an archive) is kept as it is.
//
// Opening a kept body decodes into exactly the size its row states, never
// more: a damaged or planted row costs what an honest one of that size
// does, and a blob that inflates to anything else is refused by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/crawl/records.h"

namespace actorcrawl {

enum class KeptBodyError {
  none,
  unknown_encoding,  // not "deflate" or "identity"
  too_large,         // the row's size is over the caller's limit, or negative
  corrupt,           // the DEFLATE stream is damaged
  wrong_size,        // it decodes to another size than the row's
};

// Stable names: unknown_encoding, too_large, corrupt, wrong_size.
const char* to_string(KeptBodyError error);

// `body` compressed, or as it is when compressing would not make it smaller.
KeptBody keep_body(std::string_view body);

// The body `kept` holds, or nullopt with `why` set. `max_size` bounds the
// size the row may state (the crawl's max_body_bytes, or more).
std::optional<std::string> open_kept_body(const KeptBody& kept, std::int64_t max_size, KeptBodyError* why = nullptr);

}  // namespace actorcrawl
