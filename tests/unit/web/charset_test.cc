#include "core/web/charset.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

namespace actorcrawl {

TEST_CASE("windows-1252 to UTF-8", "[charset]") {
  CHECK(to_utf8("caf\xe9", "windows-1252") == "caf\xC3\xA9");
  CHECK(to_utf8("\x93quotes\x94", "windows-1252") == "\xE2\x80\x9Cquotes\xE2\x80\x9D");
  CHECK(to_utf8("\x80", "windows-1252") == "\xE2\x82\xAC");
  CHECK(to_utf8("\x99\x85\xA0\xFF", "windows-1252") ==
        "\xE2\x84\xA2\xE2\x80\xA6\xC2\xA0\xC3\xBF");
  // The five undefined bytes are the C1 controls, as browsers decode them.
  CHECK(to_utf8("\x81\x8D\x8F\x90\x9D", "windows-1252") ==
        "\xC2\x81\xC2\x8D\xC2\x8F\xC2\x90\xC2\x9D");
  CHECK(to_utf8("a\x81z", "windows-1252") == "a\xC2\x81z");
  // Pure ASCII is copied as it is.
  CHECK(to_utf8("plain ascii title", "windows-1252") == "plain ascii title");
  CHECK(to_utf8("", "windows-1252").empty());
  // NULs are data, not terminators.
  CHECK(to_utf8(std::string("a\0\xe9", 3), "windows-1252") == std::string("a\0\xC3\xA9", 4));
}

TEST_CASE("every windows-1252 byte decodes to valid UTF-8", "[charset]") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string out = to_utf8(all, "windows-1252");
  CHECK(is_valid_utf8(out));
  CHECK(out.find("\xEF\xBF\xBD") == std::string::npos);  // no byte is lost
}

TEST_CASE("ISO-8859-1 and ASCII labels mean windows-1252", "[charset]") {
  for (const char* label : {"ISO-8859-1", "iso-8859-1", "latin1", "L1", "us-ascii", "ASCII",
                            "iso_8859-1:1987", "cp1252", " Windows-1252 "}) {
    INFO(label);
    CHECK(to_utf8("\x80 caf\xe9", label) == "\xE2\x82\xAC caf\xC3\xA9");
    CHECK(sniff_charset("<p>x</p>", label) == "windows-1252");
  }
}

TEST_CASE("Shift_JIS and its aliases", "[charset]") {
  const std::string nihon = "\xE6\x97\xA5\xE6\x9C\xAC";  // 日本
  for (const char* label : {"shift_jis", "Shift_JIS", "shift-jis", "sjis", "x-sjis", "ms932",
                            "windows-31j"}) {
    INFO(label);
    CHECK(to_utf8("\x93\xfa\x96\x7b", label) == nihon);
    CHECK(sniff_charset("", label) == "shift_jis");
  }
  // 0x5C is a backslash, as in browsers, not the yen sign of strict JIS X 0201.
  CHECK(to_utf8("\x5c\x93\xfa", "shift_jis") == "\\\xE6\x97\xA5");
  // Half-width katakana (single byte): ｱ
  CHECK(to_utf8("\xB1", "shift_jis") == "\xEF\xBD\xB1");
}

TEST_CASE("other CJK encodings", "[charset]") {
  CHECK(to_utf8("\xC6\xFC\xCB\xDC", "EUC-JP") == "\xE6\x97\xA5\xE6\x9C\xAC");
  CHECK(to_utf8("\x1b$B\x46\x7c\x4b\x5c\x1b(B!", "iso-2022-jp") == "\xE6\x97\xA5\xE6\x9C\xAC!");
  // 中文 in GBK; gb2312 is a GBK label.
  CHECK(to_utf8("\xD6\xD0\xCE\xC4", "gbk") == "\xE4\xB8\xAD\xE6\x96\x87");
  CHECK(to_utf8("\xD6\xD0\xCE\xC4", "GB2312") == "\xE4\xB8\xAD\xE6\x96\x87");
  CHECK(sniff_charset("", "gb2312") == "gbk");
  CHECK(to_utf8("\xA4\xA4\xA4\xE5", "big5") == "\xE4\xB8\xAD\xE6\x96\x87");
  // 한국
  CHECK(to_utf8("\xC7\xD1\xB1\xB9", "euc-kr") == "\xED\x95\x9C\xEA\xB5\xAD");
}

TEST_CASE("Cyrillic and other single-byte encodings", "[charset]") {
  const std::string privet = "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82";  // Привет
  CHECK(to_utf8("\xF0\xD2\xC9\xD7\xC5\xD4", "KOI8-R") == privet);
  CHECK(to_utf8("\xCF\xF0\xE8\xE2\xE5\xF2", "windows-1251") == privet);
  CHECK(to_utf8("\xBF\xE0\xD8\xD2\xD5\xE2", "iso-8859-5") == privet);
  CHECK(to_utf8("\xA4", "iso-8859-15") == "\xE2\x82\xAC");
  CHECK(to_utf8("\xE1", "iso-8859-7") == "\xCE\xB1");  // α
  // iso-8859-9 is a windows-1254 label.
  CHECK(to_utf8("\xFD\x80", "iso-8859-9") == "\xC4\xB1\xE2\x82\xAC");  // ı€
  // windows-1258 composes letters with combining marks, so glibc holds back
  // the last letter until the end: it must still come out.
  CHECK(to_utf8("abc\xE2", "windows-1258") == "abc\xC3\xA2");
}

TEST_CASE("UTF-16 with a byte order mark", "[charset]") {
  const std::string le("\xFF\xFE" "A\0" "\xE9\0" "\x3D\xD8\x00\xDE", 10);
  CHECK(sniff_charset(le, "") == "utf-16le");
  CHECK(to_utf8(le, "utf-16le") == "A\xC3\xA9\xF0\x9F\x98\x80");  // Aé😀, BOM dropped
  CHECK(to_utf8(le, "utf-16") == "A\xC3\xA9\xF0\x9F\x98\x80");

  const std::string be("\xFE\xFF" "\0A" "\x65\xE5", 6);
  CHECK(sniff_charset(be, "") == "utf-16be");
  CHECK(to_utf8(be, "utf-16be") == "A\xE6\x97\xA5");  // A日

  // Unpaired surrogates and an odd final byte become U+FFFD.
  CHECK(to_utf8(std::string("\x00\xD8" "A\0", 4), "utf-16le") == "\xEF\xBF\xBD" "A");
  CHECK(to_utf8(std::string("\x00\xDC" "A\0", 4), "utf-16le") == "\xEF\xBF\xBD" "A");
  CHECK(to_utf8(std::string("A\0" "\x00\xD8", 4), "utf-16le") == "A\xEF\xBF\xBD");
  CHECK(to_utf8(std::string("A\0B", 3), "utf-16le") == "A\xEF\xBF\xBD");
}

TEST_CASE("invalid UTF-8 is repaired with U+FFFD", "[charset]") {
  const std::string r = "\xEF\xBF\xBD";
  // Valid input is returned unchanged; a UTF-8 BOM is dropped.
  CHECK(to_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80", "utf-8") == "caf\xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(to_utf8("\xEF\xBB\xBFhi", "UTF8") == "hi");
  // Overlong forms: each maximal invalid subpart is one U+FFFD.
  CHECK(to_utf8("a\xC0\xAFz", "utf-8") == "a" + r + r + "z");
  CHECK(to_utf8("\xE0\x80\xAF", "utf-8") == r + r + r);
  CHECK(to_utf8("\xF0\x80\x80\xAF", "utf-8") == r + r + r + r);
  // Surrogates (U+D800) and beyond U+10FFFF.
  CHECK(to_utf8("\xED\xA0\x80", "utf-8") == r + r + r);
  CHECK(to_utf8("\xF4\x90\x80\x80", "utf-8") == r + r + r + r);
  CHECK(to_utf8("\xF5\xFF", "utf-8") == r + r);
  // Truncated sequences: at the end, and followed by ASCII.
  CHECK(to_utf8("ab\xE6\x97", "utf-8") == "ab" + r);
  CHECK(to_utf8("ab\xF0\x9F\x98", "utf-8") == "ab" + r);
  CHECK(to_utf8("\xE6\x97z", "utf-8") == r + "z");
  // Lone continuation bytes.
  CHECK(to_utf8("\x80\xBF", "utf-8") == r + r);
  // Valid sequences around the damage survive.
  CHECK(to_utf8("\xC3\xA9\xFF\xC3\xA9", "utf-8") == "\xC3\xA9" + r + "\xC3\xA9");
}

TEST_CASE("is_valid_utf8", "[charset]") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ASCII that is longer than eight bytes"));
  CHECK(is_valid_utf8("\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"));
  CHECK(is_valid_utf8("\xED\x9F\xBF\xEE\x80\x80"));  // U+D7FF, U+E000 around the surrogates
  CHECK(is_valid_utf8(std::string("\0", 1)));
  CHECK_FALSE(is_valid_utf8("\xC0\x80"));          // overlong NUL
  CHECK_FALSE(is_valid_utf8("\xC1\xBF"));          // overlong
  CHECK_FALSE(is_valid_utf8("\xE0\x9F\xBF"));      // overlong
  CHECK_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));  // overlong
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));      // U+D800
  CHECK_FALSE(is_valid_utf8("\xED\xBF\xBF"));      // U+DFFF
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(is_valid_utf8("0123456789abcdef\xE6\x97"));  // truncated after a fast-path run
  CHECK_FALSE(is_valid_utf8("\x80"));
  CHECK_FALSE(is_valid_utf8("\xFE"));
}

// ASCII is skipped 32 bytes, then 8, then one at a time: a byte that is
// not ASCII is found wherever it falls against those strides.
TEST_CASE("valid_utf8_prefix: a bad byte or a character at every place of an ASCII run", "[charset]") {
  for (std::size_t at = 0; at < 80; ++at) {
    INFO("at " << at);
    std::string text(90, 'a');
    text[at] = '\xFF';
    CHECK(valid_utf8_prefix(text) == at);
    text.replace(at, 1, "\xC3\xA9");  // é: valid, and the ASCII after it is skipped again
    CHECK(is_valid_utf8(text));
    text[text.size() - 1 - at % 40] = '\x80';
    CHECK(valid_utf8_prefix(text) == text.size() - 1 - at % 40);
  }
}

TEST_CASE("unknown labels: UTF-8 if valid, else windows-1252", "[charset]") {
  CHECK(to_utf8("caf\xC3\xA9", "x-no-such-charset") == "caf\xC3\xA9");
  CHECK(to_utf8("caf\xe9", "x-no-such-charset") == "caf\xC3\xA9");
  CHECK(to_utf8("caf\xe9", "") == "caf\xC3\xA9");
  // Labels outside the WHATWG list are unknown even where iconv knows them.
  CHECK(to_utf8("+AGEAYgBj-", "utf-7") == "+AGEAYgBj-");
  CHECK(to_utf8("\xC1\xC2", "ebcdic-us") == "\xC3\x81\xC3\x82");
  // A truncated final sequence does not flip valid UTF-8 to windows-1252.
  CHECK(to_utf8("caf\xC3\xA9\xE6\x97", "bogus") == "caf\xC3\xA9\xEF\xBF\xBD");
}

TEST_CASE("every decoder yields valid UTF-8 for arbitrary bytes", "[charset]") {
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::string noise;
  for (int i = 0; i < 4096; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    noise += static_cast<char>(state >> 56);
  }
  for (const char* label :
       {"utf-8", "utf-16le", "utf-16be", "windows-1252", "shift_jis", "euc-jp", "iso-2022-jp",
        "gbk", "gb18030", "big5", "euc-kr", "koi8-r", "koi8-u", "iso-8859-2", "iso-8859-6",
        "iso-8859-8", "windows-874", "windows-1255", "windows-1258", "ibm866", "macintosh",
        "x-mac-cyrillic", "bogus"}) {
    INFO(label);
    const std::string out = to_utf8(noise, label);
    CHECK(is_valid_utf8(out));
    CHECK_FALSE(out.empty());
  }
}

TEST_CASE("sniff: precedence", "[charset]") {
  const std::string meta_sjis = "<html><head><meta charset=\"shift_jis\"></head>";
  // BOM beats the header and the meta.
  CHECK(sniff_charset("\xEF\xBB\xBF" + meta_sjis, "koi8-r") == "utf-8");
  CHECK(sniff_charset(std::string("\xFF\xFE<\0h\0", 6), "windows-1252") == "utf-16le");
  // The header beats the meta.
  CHECK(sniff_charset(meta_sjis, "koi8-r") == "koi8-r");
  // The meta beats the content.
  CHECK(sniff_charset(meta_sjis + "caf\xC3\xA9", "") == "shift_jis");
  // No declaration: valid UTF-8 or else windows-1252.
  CHECK(sniff_charset("<p>caf\xC3\xA9</p>", "") == "utf-8");
  CHECK(sniff_charset("<p>plain</p>", "") == "utf-8");
  CHECK(sniff_charset("", "") == "utf-8");
  CHECK(sniff_charset("<p>caf\xe9</p>", "") == "windows-1252");
  // A body cut off inside a character is still UTF-8, given some earlier
  // multi-byte character as evidence; a lone final lead byte is not.
  CHECK(sniff_charset("<p>caf\xC3\xA9 \xE6\x97", "") == "utf-8");
  CHECK(sniff_charset("<p>cafe \xE6\x97", "") == "windows-1252");
  CHECK(sniff_charset("caf\xe9", "") == "windows-1252");
  // An unknown label in the header is ignored, not obeyed.
  CHECK(sniff_charset(meta_sjis, "x-bogus") == "shift_jis");
  CHECK(sniff_charset("caf\xe9", "x-bogus") == "windows-1252");
  // Header labels are trimmed of whitespace and quotes, and case-folded.
  CHECK(sniff_charset("", " \"ISO-8859-1\" ") == "windows-1252");
  CHECK(sniff_charset("", "UTF-8") == "utf-8");
}

TEST_CASE("sniff: meta spellings", "[charset]") {
  CHECK(sniff_charset("<meta charset=\"EUC-JP\">", "") == "euc-jp");
  CHECK(sniff_charset("<META CHARSET='Shift_JIS'>", "") == "shift_jis");
  CHECK(sniff_charset("<meta charset=koi8-r>", "") == "koi8-r");
  CHECK(sniff_charset("<meta charset = \" gbk \" />", "") == "gbk");
  CHECK(sniff_charset("<meta/charset=big5>", "") == "big5");
  // http-equiv form, in either attribute order and any case.
  CHECK(sniff_charset(
            "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">",
            "") == "windows-1251");
  CHECK(sniff_charset("<META CONTENT='text/html;CHARSET=Shift_JIS' HTTP-EQUIV='content-type'>",
                      "") == "shift_jis");
  CHECK(sniff_charset("<meta http-equiv=content-type content='text/html; charset=\"euc-kr\"'>",
                      "") == "euc-kr");
  // content= without http-equiv=content-type declares nothing.
  CHECK(sniff_charset("<meta content=\"text/html; charset=koi8-r\">caf\xe9", "") ==
        "windows-1252");
  CHECK(sniff_charset("<meta name=x content=\"charset=koi8-r\">", "") == "utf-8");
  // A meta declaring UTF-16 means UTF-8; latin1 means windows-1252.
  CHECK(sniff_charset("<meta charset=utf-16le>", "") == "utf-8");
  CHECK(sniff_charset("<meta charset=latin1>", "") == "windows-1252");
  // An unknown meta label is skipped and the scan goes on.
  CHECK(sniff_charset("<meta charset=bogus><meta charset=koi8-r>", "") == "koi8-r");
  // The first duplicate attribute counts.
  CHECK(sniff_charset("<meta charset=koi8-r charset=gbk>", "") == "koi8-r");
  // "<metal" is not a meta tag.
  CHECK(sniff_charset("<metal charset=koi8-r>", "") == "utf-8");
}

TEST_CASE("sniff: what the prescan does not see", "[charset]") {
  // Inside comments, and inside another tag's attribute value.
  CHECK(sniff_charset("<!-- <meta charset=koi8-r> --><p>x", "") == "utf-8");
  CHECK(sniff_charset("<!--><meta charset=koi8-r>", "") == "koi8-r");  // "<!-->" is closed
  CHECK(sniff_charset("<div title=\"<meta charset=koi8-r>\">x</div>", "") == "utf-8");
  CHECK(sniff_charset("<div title=\"x\"><meta charset=koi8-r>", "") == "koi8-r");

  // Beyond the first 1024 bytes.
  const std::string pad(1100, ' ');
  CHECK(sniff_charset(pad + "<meta charset=shift_jis>caf\xe9", "") == "windows-1252");
  CHECK(sniff_charset(pad + "<meta charset=shift_jis>caf\xC3\xA9", "") == "utf-8");
  // Entirely within them, up to the last byte.
  const std::string tag = "<meta charset=\"koi8-r\">";
  CHECK(sniff_charset(std::string(1024 - tag.size(), ' ') + tag + "caf\xe9", "") == "koi8-r");
  // Cut by the boundary: the value is not half-read.
  CHECK(sniff_charset(std::string(1024 - tag.size() + 2, ' ') + tag + "caf\xe9", "") ==
        "windows-1252");
  // Unquoted "koi8-ru" cut to "koi8-r" would be a valid label.
  const std::string unquoted = "<meta charset=koi8-ru>";
  CHECK(sniff_charset(std::string(1024 - unquoted.size(), ' ') + unquoted, "") == "koi8-u");
  CHECK(sniff_charset(std::string(1024 - unquoted.size() + 2, ' ') + unquoted, "") == "utf-8");
}

TEST_CASE("sniff then convert", "[charset]") {
  const std::string body =
      "<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=Shift_JIS\">"
      "<title>\x93\xfa\x96\x7b</title>";
  const std::string cs = sniff_charset(body, "");
  REQUIRE(cs == "shift_jis");
  const std::string utf8 = to_utf8(body, cs);
  CHECK(is_valid_utf8(utf8));
  CHECK(utf8.find("<title>\xE6\x97\xA5\xE6\x9C\xAC</title>") != std::string::npos);
}

}  // namespace actorcrawl
