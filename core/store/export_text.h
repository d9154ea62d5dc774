// Text from crawled pages made safe for each export format. A page's title
// may hold any bytes: invalid UTF-8, C0 controls, quotes, `<&>`, commas and
// newlines. Every writer passes its text through one of these, so no value
// can break the file's syntax or make it unreadable to a strict parser.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

// `text` as valid UTF-8: each byte that does not begin a well-formed
// sequence (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF)
// becomes U+FFFD. With `xml_chars`, so do the code points XML 1.0 forbids
// (C0 controls but tab, LF and CR; U+FFFE, U+FFFF), which no XML parser
// accepts even as character references.
void append_utf8(std::string& out, std::string_view text, bool xml_chars = false);

// XML 1.0 character data, valid in element content and in attribute values
// (double-quoted): `&<>"` as entities, tab, LF and CR as character
// references (an attribute's value would otherwise have them normalized to
// spaces), then append_utf8(xml_chars).
void append_xml(std::string& out, std::string_view text);

// A Graphviz DOT quoted string, quotes included. The only escape DOT
// knows inside one is \" (and a backslash pair, kept as is), so a
// backslash is doubled and a quote escaped; newlines become \n (a line
// break in a label); other controls U+FFFD.
void append_dot_quoted(std::string& out, std::string_view text);

// One RFC 4180 field: quoted, with quotes doubled, when it holds a comma,
// a quote, CR or LF; controls but tab, LF and CR become U+FFFD. A text
// field beginning with `=`, `+`, `-`, `@`, tab or CR (a formula to a
// spreadsheet: CSV injection) gets a leading `'` and is quoted, as OWASP
// advises. Numbers are written by the caller, unguarded.
void append_csv_text(std::string& out, std::string_view text);

}  // namespace actorcrawl
