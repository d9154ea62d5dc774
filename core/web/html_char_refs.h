// Character references (&amp; &#38; &#x26; &copy) as the HTML Standard's
// tokenizer decodes them, for the streaming parser: attribute values and
// the text of <title>.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace actorcrawl {

enum class CharRefContext { text, attribute };

// `in` starts just after an '&'. Appends the decoded text to `out` and
// returns how many bytes of `in` it used; 0 when this is no reference, and
// the caller keeps the '&' as it is. In an attribute, a legacy name without
// its ';' followed by '=' or a letter or digit is not decoded (so
// "?a=1&copy=2" stays as written), as the standard says.
std::size_t decode_char_ref(std::string_view in, CharRefContext context, std::string& out);

}  // namespace actorcrawl
