// The manual page actorcrawl(1), in roff, made from the very text `--help`
// prints (the command list, the option table, each command's own help), so
// the two cannot drift: a key added to the configuration is in both.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorcrawl {

struct ManPageText {
  std::string version;
  // `--help`'s command list and option table: entries whose first line is
  // indented two spaces (the command or flags), their description lines six
  // or more; a line indented more than two before any description continues
  // the entry's first line.
  std::string commands;
  std::string options_intro;  // a paragraph
  std::string options;
  // Each command's `actorcrawl NAME --help`, kept as printed.
  std::vector<std::pair<std::string, std::string>> command_help;
};

std::string man_page(const ManPageText& text);

// One line of text made safe for roff: backslashes, minus signs, and a
// leading '.' or '\'' that roff would take for a request.
std::string roff_escape(std::string_view line);

// An entry list as described above, as roff .TP paragraphs.
std::string roff_definition_list(std::string_view text);

}  // namespace actorcrawl
