// HTTP dates (RFC 9110 5.6.7) as the fetch reads and writes them: the
// validators of a conditional request (Last-Modified in, If-Modified-Since
// out). Locale- and time-zone-free: every date is GMT.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace actorcrawl {

// Epoch milliseconds of an HTTP-date in any of the three forms a recipient
// must accept:
//   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
//   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT   (00-69 is 20xx, 70-99 19xx)
//   asctime      Sun Nov  6 08:49:37 1994
// Surrounding whitespace is ignored; anything else (another form, a field
// out of range, a date before 1970) is -1. A whole multiple of 1000, since
// an HTTP-date counts seconds. One pass over the text per form.
std::int64_t parse_http_date(std::string_view text);

// The IMF-fixdate of an epoch time, its milliseconds dropped: what a sender
// must generate. "" for a time before 1970 or after 9999.
std::string format_http_date(std::int64_t epoch_ms);

}  // namespace actorcrawl
