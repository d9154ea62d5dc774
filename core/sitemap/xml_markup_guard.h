// XML markup measured before libxml2 reads it, because libxml2 2.9's push
// parser is linear in a document only while each piece of markup is small:
//   - a start tag's attributes are checked for duplicates pairwise, and so
//     are its namespace declarations (quadratic in one tag's attributes);
//   - before it parses a tag, the push parser looks back over all the
//     bytes it holds for the last '<' and '>' on every chunk it is given
//     (quadratic in one tag's size over the chunk size);
//   - a comment or processing instruction is held whole in memory;
//   - of a CDATA section whose end it has not seen, it hands on 300 bytes
//     per chunk it is given and holds the rest, searching all it holds for
//     "]]>" again on the next chunk (memory and time quadratic in the
//     section's size over the chunk size).
// So each tag, comment, processing instruction, CDATA section and DOCTYPE
// is limited to kMaxMarkupBytes, and a tag to kMaxAttributes attributes; no
// sitemap comes near either (a CDATA section in a sitemap holds a URL or a
// caption). Text is not limited here: libxml2 hands it on as it arrives.
//
// The scan follows XML's lexical structure (quoted attribute values, the
// ends of comments, CDATA and processing instructions, and a DOCTYPE's
// internal subset with its brackets, quotes, comments and processing
// instructions). It checks nothing else: well-formedness is libxml2's
// business, which stops at the first error, so where the scan and libxml2
// could disagree about a malformed document libxml2 has already given up.
#pragma once

#include <cstddef>
#include <string_view>

namespace actorcrawl {

class XmlMarkupGuard {
 public:
  static constexpr std::size_t kMaxMarkupBytes = 64 * 1024;
  static constexpr std::size_t kMaxAttributes = 64;
  static constexpr std::size_t npos = std::string_view::npos;

  // Scans the next bytes of the document: npos when all of them are
  // within the limits, else the offset in `bytes` of the first byte past
  // one. After a limit is passed, scan() always returns 0.
  std::size_t scan(std::string_view bytes);

  bool tripped() const { return tripped_; }

 private:
  enum class State {
    text,
    lt,              // after '<'
    bang,            // after "<!"
    bang_dash,       // after "<!-"
    comment,
    cdata,
    pi,
    end_tag,
    start_tag,
    decl,            // <!DOCTYPE ...> and any other <!...>
    decl_lt,         // '<' inside a declaration's brackets
    decl_bang,       // "<!" there
    decl_bang_dash,  // "<!-" there
    decl_comment,
    decl_pi,
  };

  State state_ = State::text;
  bool tripped_ = false;
  char quote_ = 0;          // the open quote of an attribute value or literal
  int run_ = 0;             // '-', ']' or '?' just before, for the ends
  std::size_t brackets_ = 0;
  std::size_t markup_bytes_ = 0;
  std::size_t attributes_ = 0;
};

}  // namespace actorcrawl
