#include "core/config/man_page.h"

#include <catch2/catch.hpp>

#include <string>

#include "core/config/crawl_config.h"

using namespace actorcrawl;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("man page: roff_escape keeps text text", "[man]") {
  CHECK(roff_escape("--max-pages") == "\\-\\-max\\-pages");
  CHECK(roff_escape("a\\b") == "a\\eb");
  // A line roff would read as a request (".SH", "'br") stays text.
  CHECK(roff_escape(".SH x") == "\\&.SH x");
  CHECK(roff_escape("'br") == "\\&'br");
  CHECK(roff_escape("a.b 'c'") == "a.b 'c'");
}

TEST_CASE("man page: a help entry list becomes .TP paragraphs", "[man]") {
  const std::string list =
      "  actorcrawl trace FILE... [--url URL]\n"
      "                   [--since TIME]\n"
      "      Show message trace files,\n"
      "      merged by time.\n"
      "  --quiet\n"
      "      only warnings\n";
  CHECK(roff_definition_list(list) ==
        ".TP\n\\fBactorcrawl trace FILE... [\\-\\-url URL] [\\-\\-since TIME]\\fR\n"
        "Show message trace files, merged by time.\n"
        ".TP\n\\fB\\-\\-quiet\\fR\nonly warnings\n");
}

TEST_CASE("man page: every configuration key and flag of --help is in it", "[man]") {
  ManPageText text;
  text.version = "9.9";
  text.commands = "  actorcrawl crawl [options]\n      Crawl.\n";
  text.options_intro = "options:\n";
  text.options = options_help();
  text.command_help = {{"serve", "usage: actorcrawl serve\n\n.dots stay text\n"}};
  const std::string page = man_page(text);
  CHECK(contains(page, ".TH ACTORCRAWL 1 \"\" \"actorcrawl 9.9\""));
  CHECK(contains(page, ".SH SYNOPSIS\n.nf\n\\fBactorcrawl crawl [options]\\fR\n.fi\n"));
  CHECK(contains(page, ".SS \"actorcrawl serve\"\n.PP\n.RS 4\n.nf\nusage: actorcrawl serve\n\n\\&.dots stay text\n.fi\n"));
  int keys = 0;
  for (const auto& key : config_keys()) {
    ++keys;
    INFO(key.name);
    CHECK(contains(page, "[" + roff_escape(key.name) + ", default "));
  }
  CHECK(keys > 50);
  // No line of the page starts with a request roff does not know of ours:
  // every '.' at a line start is one of the requests the page uses.
  std::size_t at = 0;
  while (at < page.size()) {
    auto end = page.find('\n', at);
    std::string line = page.substr(at, end - at);
    if (!line.empty() && line[0] == '.') {
      auto request = line.substr(0, line.find(' '));
      INFO(line);
      CHECK((request == ".TH" || request == ".SH" || request == ".SS" || request == ".TP" || request == ".PP" ||
             request == ".RS" || request == ".RE" || request == ".nf" || request == ".fi" || request == ".\\\""));
    }
    at = end == std::string::npos ? page.size() : end + 1;
  }
}
