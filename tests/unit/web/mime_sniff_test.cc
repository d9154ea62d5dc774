#include "core/web/mime_sniff.h"

#include <catch2/catch.hpp>

#include <string>

namespace actorcrawl {

TEST_CASE("mime sniffing: the HTML patterns, after leading whitespace", "[mime_sniff]") {
  for (const char* html : {"<!DOCTYPE html><title>x</title>", "<!doctype HTML>", "<html lang=en>", "<HEAD>",
                           "<script>", "<iframe src=x>", "<h1>T</h1>", "<div>", "<font>", "<table>", "<a href=/x>",
                           "<style>", "<TITLE>t</TITLE>", "<b>", "<body>", "<br>", "<p>", "<!-- c -->",
                           " \t\r\n\f<html>"}) {
    INFO(html);
    CHECK(sniffs_as_html(html));
  }
  for (const char* other : {"", "plain text <html>", "<?xml version=\"1.0\"?><html>", "<htmlx>", "<a", "<p\n>",
                            "%PDF-1.4 <html>", "{\"json\": \"<html>\"}", "<svg>", "\xEF\xBB\xBF<html>"}) {
    INFO(other);
    CHECK_FALSE(sniffs_as_html(other));
  }
}

TEST_CASE("mime sniffing: only the first 1,445 bytes count", "[mime_sniff]") {
  CHECK(sniffs_as_html(std::string(1400, ' ') + "<html>"));
  CHECK_FALSE(sniffs_as_html(std::string(1445, ' ') + "<html>"));
  // Cost does not grow with the body: a huge body of whitespace is cut.
  CHECK_FALSE(sniffs_as_html(std::string(10 << 20, ' ')));
}

TEST_CASE("mime sniffing: which declared types are sniffed", "[mime_sniff]") {
  for (const char* t : {"", "application/octet-stream", "text/plain", "unknown/unknown", "application/unknown", "*/*"})
    CHECK(is_sniffable_type(t));
  for (const char* t : {"text/html", "application/pdf", "image/png", "text/css", "application/json"})
    CHECK_FALSE(is_sniffable_type(t));
}

}  // namespace actorcrawl
