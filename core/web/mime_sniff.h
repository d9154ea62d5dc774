// Whether a response is HTML when its Content-Type does not say so: the
// WHATWG MIME Sniffing Standard's HTML patterns (section 7.1, "identifying
// a resource with an unknown MIME type"), looked for in the resource header
// (the first 1,445 bytes) after leading whitespace.
//
// A crawler applies them where a server gives no useful type: no
// Content-Type at all, "application/octet-stream" (the default of many
// servers for a file they cannot type), "text/plain" and the "unknown"
// types. A declared type of anything else (image/png, application/pdf,
// text/css...) is believed, as browsers do.
#pragma once

#include <string_view>

namespace actorcrawl {

// The first 1,445 bytes of `body` begin, after whitespace, with one of the
// HTML patterns ("<!DOCTYPE HTML", "<html", "<head", "<script", "<iframe",
// "<h1", "<div", "<font", "<table", "<a", "<style", "<title", "<b",
// "<body", "<br", "<p", "<!--", each followed by a space or '>'), ASCII
// case ignored.
bool sniffs_as_html(std::string_view body);

// The declared type (lowercase, without parameters) is one a crawler
// sniffs: "", "application/octet-stream", "text/plain", "unknown/unknown",
// "application/unknown", "*/*".
bool is_sniffable_type(std::string_view declared);

}  // namespace actorcrawl
