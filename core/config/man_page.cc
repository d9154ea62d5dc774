#include "core/config/man_page.h"

#include <sstream>

#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

std::size_t indent_of(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == ' ')
    ++n;
  return n;
}

// Calls `each` with every line of `text`, without its '\n'.
template <class F>
void for_each_line(std::string_view text, F each) {
  while (!text.empty()) {
    auto end = text.find('\n');
    each(text.substr(0, end));
    if (end == std::string_view::npos)
      break;
    text.remove_prefix(end + 1);
  }
}

void preformatted(std::ostream& out, std::string_view text) {
  out << ".PP\n.RS 4\n.nf\n";
  for_each_line(text, [&](std::string_view line) { out << roff_escape(line) << "\n"; });
  out << ".fi\n.RE\n";
}

}  // namespace

std::string roff_escape(std::string_view line) {
  std::string out;
  out.reserve(line.size() + 8);
  if (!line.empty() && (line.front() == '.' || line.front() == '\''))
    out += "\\&";
  for (char c : line) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

std::string roff_definition_list(std::string_view text) {
  std::ostringstream out;
  std::string tag;
  std::string body;
  bool in_body = false;
  auto flush = [&] {
    if (tag.empty() && body.empty())
      return;
    out << ".TP\n";
    if (!tag.empty())
      out << "\\fB" << roff_escape(tag) << "\\fR\n";
    if (!body.empty())
      out << roff_escape(body) << "\n";
    tag.clear();
    body.clear();
    in_body = false;
  };
  for_each_line(text, [&](std::string_view line) {
    auto words = ascii::trim(line);
    if (words.empty())
      return;
    std::size_t indent = indent_of(line);
    if (indent <= 2) {
      flush();
      tag = std::string{words};
    } else if (indent < 6 || (!in_body && indent > 6 && !tag.empty())) {
      // A continued first line ("[--since TIME] ...") joins it.
      tag += ' ';
      tag += words;
    } else {
      in_body = true;
      if (!body.empty())
        body += ' ';
      body += words;
    }
  });
  flush();
  return out.str();
}

std::string man_page(const ManPageText& text) {
  std::ostringstream out;
  out << ".\\\" The manual page of actorcrawl; made by `actorcrawl --man-page` from the\n"
         ".\\\" text of `actorcrawl --help`. Do not edit: change the help text.\n"
      << ".TH ACTORCRAWL 1 \"\" \"actorcrawl " << roff_escape(text.version) << "\" \"User Commands\"\n"
      << ".SH NAME\n"
         "actorcrawl \\- a polite web crawler on the C++ Actor Framework\n"
         ".SH SYNOPSIS\n"
         ".nf\n";
  // Each command's first line, and the lines that continue it.
  bool in_first_line = false;
  for_each_line(text.commands, [&](std::string_view line) {
    if (ascii::trim(line).empty())
      return;
    std::size_t indent = indent_of(line);
    in_first_line = indent <= 2 || (in_first_line && indent > 6);
    if (in_first_line)
      out << (indent <= 2 ? "\\fB" : "\\fB    ") << roff_escape(ascii::trim(line)) << "\\fR\n";
  });
  out << ".fi\n"
         ".SH DESCRIPTION\n"
         "actorcrawl crawls the web from its seeds, one host at a time at the pace the\n"
         "host allows (robots.txt, a delay between requests), and never requests a page\n"
         "twice in a crawl. Frontier, HostSelector, FetchWorkers, Processor, Storage and\n"
         "DeadLetter actors pass typed messages; the crawl lands in one SQLite database\n"
         "with the page graph (pages, links) and the domain graph (nodes, edges), and a\n"
         "metrics log at the end. Stopped with Ctrl\\-C, the same command again resumes\n"
         "where it stopped. With no seed, it crawls a small demo web it starts on loopback.\n"
         ".PP\n"
         "The same crawl runs in one process, over several processes or machines (a\n"
         "coordinator and worker nodes), or as an HTTP crawl service with a dashboard.\n"
         ".SH COMMANDS\n"
      << roff_definition_list(text.commands) << ".SH OPTIONS\n";
  std::string intro;
  for_each_line(text.options_intro, [&](std::string_view line) {
    if (!intro.empty())
      intro += ' ';
    intro += ascii::trim(line);
  });
  out << roff_escape(intro) << "\n" << roff_definition_list(text.options);
  out << ".SH \"COMMAND HELP\"\n"
         "What each command prints for \\fB\\-\\-help\\fR.\n";
  for (const auto& [name, help] : text.command_help) {
    out << ".SS \"actorcrawl " << roff_escape(name) << "\"\n";
    preformatted(out, help);
  }
  out << ".SH ENVIRONMENT\n"
         "Every option is also an environment variable: \\fBACTORCRAWL_\\fR and the\n"
         "option's key in capitals (\\fBACTORCRAWL_MAX_PAGES=500\\fR). A flag overrides\n"
         "the environment, which overrides the configuration file.\n"
         ".SH \"EXIT STATUS\"\n"
         ".TP\n0\nthe crawl finished or was stopped (Ctrl\\-C, SIGTERM)\n"
         ".TP\n1\nan error: the database, the network, a plugin\n"
         ".TP\n2\na configuration or usage error\n"
         ".TP\n3\na worker node was refused at join\n"
         ".TP\n4\na worker node lost its coordinator for good\n"
         ".TP\n130\na second Ctrl\\-C: stopped at once; the next run resumes\n"
         ".SH FILES\n"
         ".TP\n\\fIactorcrawl.db\\fR, \\fImetrics.log\\fR\n"
         "the crawl database and the metrics of the last run (db_path, metrics_path)\n"
         ".TP\n\\fI/usr/share/doc/actorcrawl/examples/\\fR\n"
         "configuration files (a Raspberry Pi's among them) and plugins to start from\n"
         ".TP\n\\fI/var/lib/actorcrawl/\\fR\n"
         "the state of the crawl service run by systemd (actorcrawl.service)\n"
         ".SH \"SEE ALSO\"\n"
         "\\fBsqlite3\\fR(1), \\fBsystemctl\\fR(1); the documentation in\n"
         "\\fI/usr/share/doc/actorcrawl/\\fR.\n";
  return out.str();
}

}  // namespace actorcrawl
