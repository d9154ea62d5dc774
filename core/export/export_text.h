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

// A Graphviz DOT quoted string, quotes included, that Graphviz's parser
// reads back as the same bytes. Its scanner knows three escapes in a
// quoted string: \" is a quote, a backslash pair stays a pair, and a
// backslash before a line feed removes both (a line continuation); any
// other backslash stays. So a quote is written \", and everything else as
// it is, a line feed included (a literal line feed is allowed inside the
// quotes). What no spelling can give becomes U+FFFD: NUL (Graphviz keeps
// C strings), the last backslash of an odd run before a quote, a line
// feed or the end (it would escape what follows), and a line feed that
// stands alone between the start or end, a quote or a backslash (Graphviz
// 2.43's scanner drops it). Bytes that are not UTF-8 become U+FFFD too.
void append_dot_quoted(std::string& out, std::string_view text);

// One RFC 4180 field: quoted, with quotes doubled, when it holds a comma,
// a quote, CR or LF. Control characters but tab, LF and CR (C0, DEL and
// the C1 controls U+0080 to U+009F) become U+FFFD. A text field beginning
// with `=`, `+`, `-`, `@`, tab or CR (a formula to a spreadsheet: CSV
// injection) gets a leading `'` and is quoted, as OWASP advises; so does
// one beginning with `'` itself, so the guard can be undone: a reader
// drops one leading `'` from every text field that has one. Numbers are
// written by the caller, unguarded.
void append_csv_text(std::string& out, std::string_view text);

}  // namespace actorcrawl
