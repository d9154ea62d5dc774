// Character encodings of fetched pages. Everything the crawler stores (title,
// description) must be valid UTF-8, while the web still serves
// windows-1252, Shift_JIS, GBK, KOI8-R, UTF-16, ... So a body's encoding is
// determined the way browsers do it (a simplified WHATWG Encoding / HTML
// "determine the character encoding" algorithm) and the text is converted
// with glibc iconv.
//
// Only the labels of the WHATWG Encoding Standard are recognized, mapped to
// the encoding that standard assigns them (e.g. "iso-8859-1" and "us-ascii"
// mean windows-1252, "gb2312" means gbk, "shift_jis" means Microsoft's
// windows-31j). Labels outside that list (utf-7, EBCDIC, "replacement"
// encodings such as iso-2022-kr, ...) are treated as unknown on purpose:
// browsers refuse them too, and decoding HTML in an ASCII-incompatible
// encoding would turn markup into garbage.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

// The encoding a body is in, by precedence:
//   1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE);
//   2. `header_charset`, the charset parameter of the HTTP Content-Type
//      (surrounding whitespace and quotes are tolerated);
//   3. <meta charset=...> or <meta http-equiv=content-type content="...;
//      charset=..."> found by the HTML prescan of the first 1024 bytes (a tag
//      cut off by the 1024-byte boundary is not seen; a meta declaring
//      UTF-16 means UTF-8, as in browsers, since the prescan only works on
//      ASCII-compatible bytes);
//   4. "utf-8" when the body is valid UTF-8; an incomplete sequence at the
//      very end is tolerated (bodies are truncated at a size limit) if a
//      complete multi-byte character precedes it, since a lone final byte
//      of an otherwise ASCII text is more likely windows-1252 ("caf\xe9");
//   5. "windows-1252".
// An unknown label at step 2 or 3 is ignored and the next step decides.
// Returns the lowercased WHATWG name: "utf-8", "utf-16le", "utf-16be",
// "windows-1252", "shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gb18030",
// "big5", "euc-kr", "koi8-r", "koi8-u", "iso-8859-2" ... "iso-8859-16",
// "iso-8859-8-i", "windows-874", "windows-1250" ... "windows-1258",
// "ibm866", "macintosh", "x-mac-cyrillic".
std::string sniff_charset(std::string_view body, std::string_view header_charset);

// Converts `text` from `charset` (any WHATWG label, any case) to UTF-8.
// Never fails:
//   - a byte sequence invalid in the charset becomes U+FFFD (one per
//     maximal invalid subpart for UTF-8, as the WHATWG decoder does; one per
//     skipped byte for the iconv-decoded charsets);
//   - the five bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
//     0x9D) become the C1 controls of the same value, as in browsers;
//   - "utf-8" input is validated and repaired the same way;
//   - a leading byte order mark of the named encoding is dropped;
//   - an unknown label (or one this libc has no converter for) is decoded
//     the way sniff_charset() would with no declaration: as UTF-8 if the
//     text is valid UTF-8 (with the same tolerance of an incomplete final
//     sequence, which becomes U+FFFD), else as windows-1252, which maps
//     every byte, so nothing is lost.
// Valid UTF-8 in, and pure ASCII in for any ASCII-compatible charset, costs
// one validation pass and one copy; only other input goes through iconv.
std::string to_utf8(std::string_view text, std::string_view charset);

// One step of the WHATWG UTF-8 decoder at `i` (< s.size()): the length of
// the well-formed sequence there (valid = true; RFC 3629's table: no
// overlongs, no surrogates, nothing past U+10FFFF), or of the maximal
// subpart of an ill-formed one, which to_utf8 makes a single U+FFFD
// (valid = false, length >= 1). `truncated` is set when the input ends
// inside an otherwise valid sequence.
struct Utf8Step {
  std::size_t length;
  bool valid;
  bool truncated;
};
Utf8Step utf8_step(std::string_view s, std::size_t i);

// The code point of the well-formed sequence of `length` bytes at `i`
// (a valid utf8_step).
inline char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t length) {
  const auto lead = static_cast<unsigned char>(s[i]);
  char32_t cp = length == 1 ? lead : length == 2 ? (lead & 0x1Fu) : length == 3 ? (lead & 0x0Fu) : (lead & 0x07u);
  for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
  return cp;
}

// True if `s` is valid UTF-8: no overlong forms, no surrogates (U+D800 to
// U+DFFF), nothing above U+10FFFF, no truncated sequence.
bool is_valid_utf8(std::string_view s);
// How many bytes at the start of `s` are valid UTF-8: the offset of the
// first bad byte, or s.size().
std::size_t valid_utf8_prefix(std::string_view s);

}  // namespace actorcrawl
