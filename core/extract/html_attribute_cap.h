// A cap on the attributes of one start tag, for pages going to libxml2.
//
// libxml2 2.9's HTML parser costs time quadratic in the number of
// attributes of one tag: each is compared with every one before it
// (htmlParseStartTag's duplicate check) and appended at the end of the
// element's attribute list (xmlNewPropInternal walks it). One 256 kB tag of
// 16,000 attributes takes a second to parse, and a page of max_body_bytes
// made of one such tag far longer. No option of the parser limits this, so
// the page is cut before it: the attributes of a start tag past the first
// kMaxAttributesPerTag are removed, which makes each tag's cost a constant.
// No real page has a tag with that many attributes.
//
// The scan reads tags as libxml2 does (tag names from an ASCII letter, '_',
// ':' or '.'; comments to "-->"; <!...>, <?...> and end tags to '>';
// attribute values in quotes, which may hold '>', only after '='; script
// and style content as raw text to its end tag; a NUL ends a tag), so
// where it ends a tag is where libxml2 ends it. Linear in the page.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace actorcrawl {

constexpr std::size_t kMaxAttributesPerTag = 256;

// `html` without the attributes past the first `max_attributes` of each
// start tag (the whitespace before the first one removed stays); nullopt
// when no tag has more, so an ordinary page is not copied.
std::optional<std::string> cap_tag_attributes(std::string_view html,
                                              std::size_t max_attributes = kMaxAttributesPerTag);

}  // namespace actorcrawl
