#include "core/web/charset.h"
#include "core/web/ascii.h"

#include <iconv.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace actorcrawl {
namespace {

// ---------------------------------------------------------------------------
// Encodings and labels

struct Encoding {
  const char* name;        // WHATWG name, lowercased: what sniff_charset returns
  const char* iconv_name;  // glibc converter; nullptr when decoded here
  bool ascii_compatible;   // bytes 0x00-0x7F always mean U+0000-U+007F
};

// The WHATWG decoders are matched with the glibc converter closest to them:
// Shift_JIS is Microsoft's CP932 (glibc's SHIFT_JIS maps 0x5C to the yen
// sign, CP932 and browsers to a backslash), GBK is decoded as GB18030, Big5
// as Big5-HKSCS and EUC-KR as CP949, each a superset the standard adopted.
constexpr Encoding kEncodings[] = {
    {"utf-8", nullptr, true},
    {"utf-16le", nullptr, false},
    {"utf-16be", nullptr, false},
    {"ibm866", "IBM866", true},
    {"iso-8859-2", "ISO-8859-2", true},
    {"iso-8859-3", "ISO-8859-3", true},
    {"iso-8859-4", "ISO-8859-4", true},
    {"iso-8859-5", "ISO-8859-5", true},
    {"iso-8859-6", "ISO-8859-6", true},
    {"iso-8859-7", "ISO-8859-7", true},
    {"iso-8859-8", "ISO-8859-8", true},
    {"iso-8859-8-i", "ISO-8859-8", true},  // same bytes; only bidi handling differs
    {"iso-8859-10", "ISO-8859-10", true},
    {"iso-8859-13", "ISO-8859-13", true},
    {"iso-8859-14", "ISO-8859-14", true},
    {"iso-8859-15", "ISO-8859-15", true},
    {"iso-8859-16", "ISO-8859-16", true},
    {"koi8-r", "KOI8-R", true},
    {"koi8-u", "KOI8-U", true},
    {"macintosh", "MACINTOSH", true},
    {"windows-874", "CP874", true},
    {"windows-1250", "CP1250", true},
    {"windows-1251", "CP1251", true},
    {"windows-1252", "CP1252", true},
    {"windows-1253", "CP1253", true},
    {"windows-1254", "CP1254", true},
    {"windows-1255", "CP1255", true},
    {"windows-1256", "CP1256", true},
    {"windows-1257", "CP1257", true},
    {"windows-1258", "CP1258", true},
    {"x-mac-cyrillic", "MAC-CYRILLIC", true},
    {"gbk", "GB18030", true},
    {"gb18030", "GB18030", true},
    {"big5", "BIG5-HKSCS", true},
    {"euc-jp", "EUC-JP", true},
    {"iso-2022-jp", "ISO-2022-JP", false},  // ESC sequences switch the meaning of ASCII bytes
    {"shift_jis", "CP932", true},
    {"euc-kr", "CP949", true},
};

const Encoding* encoding_named(std::string_view name) {
  for (const Encoding& e : kEncodings) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

// label -> WHATWG name, from the Encoding Standard's table of labels.
const std::unordered_map<std::string_view, std::string_view>& label_table() {
  static const std::unordered_map<std::string_view, std::string_view> table = [] {
    struct Group {
      std::string_view name;
      std::initializer_list<std::string_view> labels;
    };
    const Group groups[] = {
        {"utf-8", {"unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8",
                   "x-unicode20utf8"}},
        {"ibm866", {"866", "cp866", "csibm866", "ibm866"}},
        {"iso-8859-2", {"csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592",
                        "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"}},
        {"iso-8859-3", {"csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593",
                        "iso_8859-3", "iso_8859-3:1988", "l3", "latin3"}},
        {"iso-8859-4", {"csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594",
                        "iso_8859-4", "iso_8859-4:1988", "l4", "latin4"}},
        {"iso-8859-5", {"csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144",
                        "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988"}},
        {"iso-8859-6", {"arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic",
                        "ecma-114", "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127",
                        "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987"}},
        {"iso-8859-7", {"csisolatingreek", "ecma-118", "elot_928", "greek", "greek8",
                        "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7",
                        "iso_8859-7:1987", "sun_eu_greek"}},
        {"iso-8859-8", {"csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8",
                        "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8",
                        "iso_8859-8:1988", "visual"}},
        {"iso-8859-8-i", {"csiso88598i", "iso-8859-8-i", "logical"}},
        {"iso-8859-10", {"csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910",
                         "l6", "latin6"}},
        {"iso-8859-13", {"iso-8859-13", "iso8859-13", "iso885913"}},
        {"iso-8859-14", {"iso-8859-14", "iso8859-14", "iso885914"}},
        {"iso-8859-15", {"csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15",
                         "l9"}},
        {"iso-8859-16", {"iso-8859-16"}},
        {"koi8-r", {"cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"}},
        {"koi8-u", {"koi8-ru", "koi8-u"}},
        {"macintosh", {"csmacintosh", "mac", "macintosh", "x-mac-roman"}},
        {"windows-874", {"dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620",
                         "windows-874"}},
        {"windows-1250", {"cp1250", "windows-1250", "x-cp1250"}},
        {"windows-1251", {"cp1251", "windows-1251", "x-cp1251"}},
        {"windows-1252", {"ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819",
                          "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1",
                          "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252",
                          "x-cp1252"}},
        {"windows-1253", {"cp1253", "windows-1253", "x-cp1253"}},
        {"windows-1254", {"cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9",
                          "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5",
                          "windows-1254", "x-cp1254"}},
        {"windows-1255", {"cp1255", "windows-1255", "x-cp1255"}},
        {"windows-1256", {"cp1256", "windows-1256", "x-cp1256"}},
        {"windows-1257", {"cp1257", "windows-1257", "x-cp1257"}},
        {"windows-1258", {"cp1258", "windows-1258", "x-cp1258"}},
        {"x-mac-cyrillic", {"x-mac-cyrillic", "x-mac-ukrainian"}},
        {"gbk", {"chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80",
                 "gbk", "iso-ir-58", "x-gbk"}},
        {"gb18030", {"gb18030"}},
        {"big5", {"big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"}},
        {"euc-jp", {"cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"}},
        {"iso-2022-jp", {"csiso2022jp", "iso-2022-jp"}},
        {"shift_jis", {"csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis",
                       "windows-31j", "x-sjis"}},
        {"euc-kr", {"cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean",
                    "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"}},
        {"utf-16be", {"unicodefffe", "utf-16be"}},
        {"utf-16le", {"csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff",
                      "utf-16", "utf-16le"}},
    };
    std::unordered_map<std::string_view, std::string_view> t;
    for (const Group& g : groups) {
      for (std::string_view label : g.labels) t.emplace(label, g.name);
    }
    return t;
  }();
  return table;
}

using ascii::is_html_space;
using ascii::to_lower;

// The Encoding Standard's "get an encoding": trim, lowercase, look up.
// Quotes are also trimmed because servers send charset="utf-8".
const Encoding* encoding_for_label(std::string_view label) {
  while (!label.empty() && (is_html_space(label.front()) || label.front() == '"' ||
                            label.front() == '\'')) {
    label.remove_prefix(1);
  }
  while (!label.empty() && (is_html_space(label.back()) || label.back() == '"' ||
                            label.back() == '\'')) {
    label.remove_suffix(1);
  }
  if (label.empty() || label.size() > 32) return nullptr;  // longer than any label
  char buf[32];
  for (std::size_t i = 0; i < label.size(); ++i) buf[i] = to_lower(label[i]);
  const auto& table = label_table();
  const auto it = table.find(std::string_view(buf, label.size()));
  return it == table.end() ? nullptr : encoding_named(it->second);
}

// ---------------------------------------------------------------------------
// UTF-8

}  // namespace

Utf8Step utf8_step(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return {1, true, false};
  std::size_t need;
  unsigned char lower = 0x80, upper = 0xBF;  // bounds of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lower = 0xA0;  // overlong
    if (b == 0xED) upper = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lower = 0x90;  // overlong
    if (b == 0xF4) upper = 0x8F;  // above U+10FFFF
  } else {
    return {1, false, false};  // continuation byte, C0/C1 (overlong), F5-FF
  }
  std::size_t j = i + 1;
  for (std::size_t k = 0; k < need; ++k, ++j) {
    if (j >= s.size()) return {j - i, false, true};
    const unsigned char c = byte(j);
    if (c < lower || c > upper) return {j - i, false, false};
    lower = 0x80;
    upper = 0xBF;
  }
  return {j - i, true, false};
}

namespace {

// The index of the first byte at or after `i` that is not ASCII, or
// s.size(). Most text is ASCII: 32 bytes at a time, then 8, then one (a
// word at a time cost a crawl an instruction a byte of every page).
std::size_t skip_ascii(std::string_view s, std::size_t i) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  const std::size_t n = s.size();
  for (; i + 32 <= n; i += 32) {
    std::uint64_t words[4];
    std::memcpy(words, s.data() + i, 32);
    if ((words[0] | words[1] | words[2] | words[3]) & kHighBits) break;
  }
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    if (word & kHighBits) break;
  }
  while (i < n && static_cast<unsigned char>(s[i]) < 0x80)
    ++i;
  return i;
}

bool is_ascii(std::string_view s) { return skip_ascii(s, 0) == s.size(); }

// Index of the first byte that is not part of a valid sequence, or s.size().
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {  // a run of ASCII (not after each non-ASCII character)
      i = skip_ascii(s, i);
      continue;
    }
    const Utf8Step step = utf8_step(s, i);
    if (!step.valid) return i;
    i += step.length;
  }
  return n;
}

// Valid UTF-8, or valid up to an incomplete sequence at the very end (a body
// cut at the size limit) provided some complete multi-byte character came
// before it: without that evidence a lone final byte such as the 0xE9 of a
// windows-1252 "caf\xe9" is far more likely legacy text.
bool looks_like_utf8(std::string_view s) {
  const std::size_t bad = first_invalid_utf8(s);
  if (bad == s.size()) return true;
  return utf8_step(s, bad).truncated && !is_ascii(s.substr(0, bad));
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

std::string decode_utf8(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::size_t bad = first_invalid_utf8(text);
  if (bad == text.size()) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  out.append(text.substr(0, bad));
  std::size_t i = bad;
  while (i < text.size()) {
    const Utf8Step step = utf8_step(text, i);
    if (step.valid) {
      out.append(text.substr(i, step.length));
    } else {
      out.append(kReplacement);
    }
    i += step.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// UTF-16: simple enough to decode here, which also pins down what happens to
// unpaired surrogates and an odd final byte (each becomes U+FFFD).

std::string decode_utf16(std::string_view text, bool little_endian) {
  const std::string_view bom = little_endian ? "\xFF\xFE" : "\xFE\xFF";
  if (text.substr(0, 2) == bom) text.remove_prefix(2);
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  std::uint32_t lead = 0;  // a pending high surrogate, 0 if none
  std::size_t i = 0;
  for (; i + 1 < text.size(); i += 2) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const auto b1 = static_cast<unsigned char>(text[i + 1]);
    const std::uint32_t unit = little_endian ? (b0 | (b1 << 8)) : ((b0 << 8) | b1);
    if (lead != 0) {
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((lead - 0xD800) << 10) + (unit - 0xDC00));
        lead = 0;
        continue;
      }
      out.append(kReplacement);
      lead = 0;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      lead = unit;
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      out.append(kReplacement);
    } else {
      append_utf8(out, unit);
    }
  }
  if (lead != 0) out.append(kReplacement);
  if (i < text.size()) out.append(kReplacement);
  return out;
}

// ---------------------------------------------------------------------------
// iconv

class Iconv {
 public:
  explicit Iconv(const char* from) : cd_(iconv_open("UTF-8", from)) {}
  ~Iconv() {
    if (ok()) iconv_close(cd_);
  }
  Iconv(const Iconv&) = delete;
  Iconv& operator=(const Iconv&) = delete;

  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }
  iconv_t get() const { return cd_; }

 private:
  iconv_t cd_;
};

// Bytes that windows-1252 leaves undefined; glibc refuses them, browsers
// decode them as the C1 control of the same value.
bool is_undefined_in_windows_1252(unsigned char b) {
  return b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D;
}

std::optional<std::string> decode_with_iconv(std::string_view text, const Encoding& enc) {
  Iconv cd(enc.iconv_name);
  if (!cd.ok()) return std::nullopt;
  const bool windows_1252 = std::strcmp(enc.name, "windows-1252") == 0;

  std::string out(text.size() + text.size() / 2 + 16, '\0');
  std::size_t used = 0;
  // glibc's iconv() takes char** although it never writes the input.
  char* in = const_cast<char*>(text.data());
  std::size_t in_left = text.size();

  // One call, growing the buffer when full. in == nullptr flushes the
  // converter's state (CP1255/CP1258 hold back a base letter waiting for a
  // combining mark).
  const auto convert = [&](char** in_ptr, std::size_t* in_left_ptr) {
    for (;;) {
      char* out_ptr = out.data() + used;
      std::size_t out_left = out.size() - used;
      const std::size_t r = iconv(cd.get(), in_ptr, in_left_ptr, &out_ptr, &out_left);
      used = out.size() - out_left;
      if (r != static_cast<std::size_t>(-1)) return 0;
      if (errno != E2BIG) return errno;
      out.resize(out.size() * 2);
    }
  };

  while (in_left > 0) {
    const int err = convert(&in, &in_left);
    if (err == 0) break;
    // Resuming after an error uses the out buffer directly, so sync the
    // string's size before appending replacement text.
    out.resize(used);
    if (err == EINVAL) {  // incomplete sequence at the end of the input
      out.append(kReplacement);
      in_left = 0;
    } else {  // EILSEQ (or anything unexpected): skip one byte
      const auto b = static_cast<unsigned char>(*in);
      if (windows_1252 && is_undefined_in_windows_1252(b)) {
        append_utf8(out, b);
      } else {
        out.append(kReplacement);
      }
      ++in;
      --in_left;
    }
    used = out.size();
    out.resize(used + in_left + in_left / 2 + 16);
  }
  convert(nullptr, nullptr);
  out.resize(used);
  return out;
}

// windows-1252 without iconv, for a libc built without its converters
// (e.g. a static binary with no gconv modules): the fallback of last resort
// must not depend on them.
std::string decode_windows_1252_by_hand(std::string_view text) {
  // 0x80-0x9F; the rest of the upper half is ISO-8859-1. The undefined
  // bytes map to themselves, as in browsers.
  static constexpr std::uint16_t kC1[32] = {
      0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
      0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
      0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
      0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
  std::string out;
  out.reserve(text.size() * 2);
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    append_utf8(out, (b >= 0x80 && b < 0xA0) ? kC1[b - 0x80] : b);
  }
  return out;
}

// Unknown labels, and known ones this libc cannot convert: what a browser
// does with an undeclared page.
std::string decode_undeclared(std::string_view text) {
  if (looks_like_utf8(text)) return decode_utf8(text);
  if (std::optional<std::string> out = decode_with_iconv(text, *encoding_named("windows-1252"))) {
    return std::move(*out);
  }
  return decode_windows_1252_by_hand(text);
}

std::string decode(std::string_view text, const Encoding& enc) {
  if (std::strcmp(enc.name, "utf-8") == 0) return decode_utf8(text);
  if (std::strcmp(enc.name, "utf-16le") == 0) return decode_utf16(text, true);
  if (std::strcmp(enc.name, "utf-16be") == 0) return decode_utf16(text, false);
  if (enc.ascii_compatible && is_ascii(text)) return std::string(text);
  if (std::optional<std::string> out = decode_with_iconv(text, enc)) return std::move(*out);
  return decode_undeclared(text);
}

// ---------------------------------------------------------------------------
// The HTML prescan (HTML Standard, "prescan a byte stream to determine its
// encoding"), over the first 1024 bytes. Running into the end of the window
// aborts it, so a declaration cut off by the boundary is never half-read.

class Prescan {
 public:
  explicit Prescan(std::string_view s) : s_(s) {}

  const Encoding* run() {
    while (pos_ < s_.size()) {
      if (starts_with_ci("<!--")) {
        // "<!-->" closes itself, hence the search from the second dash.
        const std::size_t end = s_.find("-->", pos_ + 2);
        if (end == std::string_view::npos) return nullptr;
        pos_ = end + 3;
        continue;
      }
      if (starts_with_ci("<meta") && pos_ + 5 < s_.size() &&
          (is_html_space(s_[pos_ + 5]) || s_[pos_ + 5] == '/')) {
        pos_ += 6;
        const Encoding* enc = meta();
        if (aborted_) return nullptr;
        if (enc) return enc;
        continue;
      }
      if (pos_ + 1 < s_.size() && s_[pos_] == '<' &&
          (is_alpha(s_[pos_ + 1]) ||
           (s_[pos_ + 1] == '/' && pos_ + 2 < s_.size() && is_alpha(s_[pos_ + 2])))) {
        // Another tag: skip its attributes so that "<meta" inside an
        // attribute value is not taken for a tag.
        while (pos_ < s_.size() && !is_html_space(s_[pos_]) && s_[pos_] != '>') ++pos_;
        while (attribute()) {
        }
        if (aborted_) return nullptr;
        ++pos_;
        continue;
      }
      if (starts_with_ci("<!") || starts_with_ci("</") || starts_with_ci("<?")) {
        const std::size_t end = s_.find('>', pos_ + 2);
        if (end == std::string_view::npos) return nullptr;
        pos_ = end + 1;
        continue;
      }
      ++pos_;
    }
    return nullptr;
  }

 private:
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

  bool starts_with_ci(std::string_view prefix) const {
    if (s_.size() - pos_ < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      if (to_lower(s_[pos_ + i]) != prefix[i]) return false;
    }
    return true;
  }

  // The attributes of one <meta>; its encoding if it declares one we know.
  const Encoding* meta() {
    bool got_pragma = false;
    enum { unset, yes, no } need_pragma = unset;
    std::optional<std::string> charset;
    std::vector<std::string> seen;
    while (attribute()) {
      bool duplicate = false;
      for (const std::string& n : seen) duplicate = duplicate || n == name_;
      if (duplicate) continue;
      seen.push_back(name_);
      if (name_ == "http-equiv") {
        got_pragma = got_pragma || value_ == "content-type";
      } else if (name_ == "content") {
        if (!charset) {
          if (std::optional<std::string> cs = charset_from_content(value_)) {
            charset = std::move(cs);
            need_pragma = yes;
          }
        }
      } else if (name_ == "charset") {
        charset = value_;
        need_pragma = no;
      }
    }
    if (aborted_ || need_pragma == unset || (need_pragma == yes && !got_pragma)) return nullptr;
    const Encoding* enc = encoding_for_label(*charset);
    if (enc && (std::strcmp(enc->name, "utf-16le") == 0 ||
                std::strcmp(enc->name, "utf-16be") == 0)) {
      enc = encoding_named("utf-8");
    }
    return enc;
  }

  // The HTML Standard's "get an attribute": fills name_ and value_
  // (lowercased). False at the end of the tag, or when the window ends
  // (then aborted_ is set).
  bool attribute() {
    name_.clear();
    value_.clear();
    while (pos_ < s_.size() && (is_html_space(s_[pos_]) || s_[pos_] == '/')) ++pos_;
    if (pos_ >= s_.size()) return abort();
    if (s_[pos_] == '>') return false;
    // Name. The first byte is taken even if it is '=': "<meta =x>" names "=x".
    for (;;) {
      const char c = s_[pos_];
      if (c == '=' && !name_.empty()) {
        ++pos_;
        break;
      }
      if (is_html_space(c)) {
        while (pos_ < s_.size() && is_html_space(s_[pos_])) ++pos_;
        if (pos_ >= s_.size()) return abort();
        if (s_[pos_] != '=') return true;  // a name without value
        ++pos_;
        break;
      }
      if (c == '/' || c == '>') return true;
      name_ += to_lower(c);
      if (++pos_ >= s_.size()) return abort();
    }
    // Value.
    while (pos_ < s_.size() && is_html_space(s_[pos_])) ++pos_;
    if (pos_ >= s_.size()) return abort();
    const char first = s_[pos_];
    if (first == '"' || first == '\'') {
      for (++pos_;; ++pos_) {
        if (pos_ >= s_.size()) return abort();
        if (s_[pos_] == first) {
          ++pos_;
          return true;
        }
        value_ += to_lower(s_[pos_]);
      }
    }
    if (first == '>') return true;
    for (;;) {
      value_ += to_lower(s_[pos_]);
      if (++pos_ >= s_.size()) return abort();
      if (is_html_space(s_[pos_]) || s_[pos_] == '>') return true;
    }
  }

  bool abort() {
    aborted_ = true;
    return false;
  }

  // The HTML Standard's "extracting a character encoding from a meta
  // element", on an already lowercased content attribute.
  static std::optional<std::string> charset_from_content(std::string_view c) {
    std::size_t pos = 0;
    for (;;) {
      const std::size_t at = c.find("charset", pos);
      if (at == std::string_view::npos) return std::nullopt;
      pos = at + 7;
      while (pos < c.size() && is_html_space(c[pos])) ++pos;
      if (pos >= c.size() || c[pos] != '=') continue;
      ++pos;
      while (pos < c.size() && is_html_space(c[pos])) ++pos;
      if (pos >= c.size()) return std::nullopt;
      if (c[pos] == '"' || c[pos] == '\'') {
        const std::size_t end = c.find(c[pos], pos + 1);
        if (end == std::string_view::npos) return std::nullopt;
        return std::string(c.substr(pos + 1, end - pos - 1));
      }
      std::size_t end = pos;
      while (end < c.size() && !is_html_space(c[end]) && c[end] != ';') ++end;
      return std::string(c.substr(pos, end - pos));
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  bool aborted_ = false;
  std::string name_;
  std::string value_;
};

}  // namespace

std::string sniff_charset(std::string_view body, std::string_view header_charset) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") return "utf-8";
  if (body.substr(0, 2) == "\xFE\xFF") return "utf-16be";
  if (body.substr(0, 2) == "\xFF\xFE") return "utf-16le";
  if (const Encoding* enc = encoding_for_label(header_charset)) return enc->name;
  if (const Encoding* enc = Prescan(body.substr(0, 1024)).run()) return enc->name;
  return looks_like_utf8(body) ? "utf-8" : "windows-1252";
}

std::string to_utf8(std::string_view text, std::string_view charset) {
  if (const Encoding* enc = encoding_for_label(charset)) return decode(text, *enc);
  return decode_undeclared(text);
}

bool is_valid_utf8(std::string_view s) { return first_invalid_utf8(s) == s.size(); }

std::size_t valid_utf8_prefix(std::string_view s) { return first_invalid_utf8(s); }

}  // namespace actorcrawl
