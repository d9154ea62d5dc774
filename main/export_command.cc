#include "main/export_command.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "core/config/crawl_config.h"
#include "core/export/crawl_export.h"
#include "core/store/database_files.h"
#include "main/command_args.h"

namespace actorcrawl {

namespace {

namespace fs = std::filesystem;

std::atomic<bool> interrupted{false};

extern "C" void on_export_signal(int) { interrupted = true; }

// Thrown from the progress callback: the export stops where it is.
struct Interrupted {};

}  // namespace

void export_usage(std::ostream& out) {
  out << "usage: actorcrawl export --db FILE --format FORMAT [--graph GRAPH] [--kind KIND] [--output FILE]\n"
         "                         [--include-new] [--since RUN] [--quiet]\n\n"
         "Writes a crawl database out for other tools. Reads the database read-only, so\n"
         "it works while a crawl is writing it (what was committed when the export began).\n"
         "Streams: memory stays small whatever the size of the crawl.\n\n"
         "  --db FILE         the crawl database\n"
         "  --format FORMAT   jsonl      one JSON object per page, with its links in document order\n"
         "                    csv        one row per page (RFC 4180, a header row)\n"
         "                    graphml    a graph for Gephi, networkx, yEd, igraph\n"
         "                    gexf       a graph for Gephi (GEXF 1.2)\n"
         "                    dot        a graph for Graphviz (dot -Tsvg)\n"
         "                    items      one JSON object per item extraction rules and processors\n"
         "                               took from a page: {\"url\", \"kind\", \"item\"}\n"
         "                    items-csv  one kind's items, one row each: url, then the items'\n"
         "                               fields as columns (needs --kind)\n"
         "                    changes    one JSON object per page a run's refetch found changed\n"
         "                               or gone: {\"url\", \"run\", \"change\"}\n"
         "  --graph GRAPH     for graphml, gexf and dot: domains (default; hosts weighted by\n"
         "                    the pages linking them) or pages (every page and link target)\n"
         "  --kind KIND       for items and items-csv: only the items of this kind (a rule's\n"
         "                    or a processor's name); given once, one kind an export\n"
         "  --include-new     for changes: pages fetched for the first time too (\"new\")\n"
         "  --since RUN       for changes: only runs after RUN (crawl_runs.run_id)\n"
         "  --output FILE     where to write (default: stdout, also '-'); a file appears\n"
         "                    only when complete\n"
         "  --quiet           no progress bar (it is drawn only when stderr is a terminal)\n\n"
         "Exit codes: 0 written; 1 the database could not be read or the output written;\n"
         "2 a usage error (--output naming the database or its -wal, -shm, -journal or\n"
         ".lock file is one; so is items-csv without --kind); 130 interrupted.\n"
         "See docs/exports.md.\n";
}

namespace {

// "exporting  [#########.........]  412,000 / 1,000,000 rows", redrawn at
// most ten times a second on a terminal's stderr.
class ProgressBar {
 public:
  explicit ProgressBar(bool shown) : shown_(shown) {}
  ~ProgressBar() {
    if (drawn_)
      std::fputs("\n", stderr);
  }
  void operator()(std::int64_t done, std::int64_t total) {
    if (interrupted.load())
      throw Interrupted{};
    if (!shown_)
      return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && done < total && now - last_ < std::chrono::milliseconds{100})
      return;
    last_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\rexporting [%s] %lld / %lld rows", bar.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total));
    std::fflush(stderr);
  }

 private:
  bool shown_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

struct ExportArgs {
  std::string db;
  ExportFormat format = ExportFormat::jsonl;
  ExportGraph graph = ExportGraph::domains;
  std::optional<std::string> kind;
  ChangesFilter changes;
  bool changes_options = false;  // --include-new or --since given
  std::string output = "-";
  bool quiet = false;
};

// Throws ConfigError for a usage error; nullopt after --help.
std::optional<ExportArgs> parse_args(std::vector<std::string> words) {
  ExportArgs out;
  std::optional<ExportFormat> format;
  std::optional<std::string> graph;
  CommandArgs args(std::move(words));
  while (!args.done()) {
    const std::string a = args.flag();
    const auto value = [&] { return args.value(); };
    if (a == "--help" || a == "-h") {
      export_usage(std::cout);
      return std::nullopt;
    } else if (a == "--db") {
      out.db = value();
    } else if (a == "--format") {
      const std::string name = value();
      format = export_format_named(name);
      if (!format)
        throw ConfigError("unknown format '" + name + "' (formats: " + export_format_names() + ")");
    } else if (a == "--graph") {
      graph = value();
      const auto g = export_graph_named(*graph);
      if (!g)
        throw ConfigError("unknown graph '" + *graph + "' (graphs: " + export_graph_names() + ")");
      out.graph = *g;
    } else if (a == "--kind") {
      // One kind or all of them: an items-csv's columns are one kind's
      // fields, and `jq 'select(.kind == ...)'` picks several from items.
      if (out.kind)
        throw ConfigError("--kind is given once: an export holds one kind, or every kind without --kind");
      out.kind = value();
      if (out.kind->empty())
        throw ConfigError("--kind needs a kind's name (a rule's or a processor's)");
    } else if (a == "--include-new") {
      out.changes.include_new = true;
      out.changes_options = true;
    } else if (a == "--since") {
      const std::string run = value();
      if (run.empty() || run.size() > 18 || run.find_first_not_of("0123456789") != std::string::npos)
        throw ConfigError("--since needs a run number (crawl_runs.run_id), got '" + run + "'");
      out.changes.since_run = std::stoll(run);
      out.changes_options = true;
    } else if (a == "--output" || a == "-o") {
      out.output = value();
      if (out.output.empty())
        throw ConfigError("--output needs a file name, or - for stdout");
    } else if (a == "--quiet" || a == "-q") {
      out.quiet = true;
    } else {
      throw ConfigError("unknown argument '" + a + "'");
    }
  }
  if (out.db.empty())
    throw ConfigError("--db FILE is required");
  if (!format)
    throw ConfigError(std::string{"--format is required ("} + export_format_names() + ")");
  out.format = *format;
  if (graph && !is_graph_format(out.format))
    throw ConfigError("--graph applies to graphml, gexf and dot, not to " +
                      std::string{export_format_name(out.format)});
  if (out.changes_options && out.format != ExportFormat::changes)
    throw ConfigError("--include-new and --since apply to changes, not to " +
                      std::string{export_format_name(out.format)});
  if (out.kind && !is_items_format(out.format))
    throw ConfigError("--kind applies to items and items-csv, not to " + std::string{export_format_name(out.format)});
  return out;
}

// items-csv without --kind: a usage error, which names the kinds the
// database holds when it can be read (a few index seeks); when it cannot,
// the error is still the missing --kind, not the database.
std::string missing_kind_message(const std::string& db) {
  std::string kinds;
  try {
    kinds = CrawlExport(db).item_kinds_listed();
    kinds = kinds.empty() ? "; the database holds no items" : "; kinds in the database: " + kinds;
  } catch (const std::exception&) {
    kinds.clear();
  }
  return "items-csv is one kind's items, its fields the columns: --kind KIND is required" + kinds;
}

// The file being written, under a temporary name beside its final one:
// renamed into place by commit(), removed otherwise. What is not a regular
// file (/dev/null, a FIFO, a terminal) is written in place: renaming over
// it would replace the device. A symbolic link is followed, so the file it
// names is replaced, not the link (a link to no file is itself replaced).
// The rename never replaces a file of the database `db`: it is checked
// again just before, in case the name came to point at one meanwhile.
class PendingFile {
 public:
  PendingFile(const std::string& path, const std::string& db) : path_(path), db_(db) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (fs::exists(status) && !fs::is_regular_file(status)) {
      in_place_ = true;
      stream_.open(path, std::ios::binary);
      if (!stream_)
        throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
      return;
    }
    if (fs::is_symlink(fs::symlink_status(path, ec)))
      if (const auto target = fs::canonical(path, ec); !ec)
        path_ = target.string();
    const fs::path final_path(path_);
    temp_ = (final_path.parent_path() / ("." + final_path.filename().string() + ".partial-" +
                                         std::to_string(::getpid())))
              .string();
    stream_.rdbuf()->pubsetbuf(buffer_.get(), kBufferBytes);
    stream_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!stream_)
      throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  }
  ~PendingFile() {
    if (committed_ || in_place_)
      return;
    stream_.close();
    std::error_code ignored;
    fs::remove(temp_, ignored);
  }
  std::ostream& stream() { return stream_; }
  void commit() {
    stream_.close();
    if (!stream_)
      throw std::runtime_error("cannot write '" + path_ + "': closing it failed");
    if (in_place_)
      return;
    if (const std::string hit = database_file_named(db_, path_); !hit.empty())
      throw std::runtime_error("cannot write '" + path_ + "': it is " + hit + " now");
    std::error_code ec;
    fs::rename(temp_, path_, ec);
    if (ec)
      throw std::runtime_error("cannot write '" + path_ + "': " + ec.message());
    committed_ = true;
  }

 private:
  static constexpr std::size_t kBufferBytes = 1 << 20;
  std::string path_, db_, temp_;
  std::unique_ptr<char[]> buffer_ = std::make_unique<char[]>(kBufferBytes);
  std::ofstream stream_;
  bool committed_ = false;
  bool in_place_ = false;
};

}  // namespace

int export_command(std::vector<std::string> args) {
  std::optional<ExportArgs> parsed;
  try {
    parsed = parse_args(std::move(args));
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl export: %s (see actorcrawl export --help)\n", e.what());
    return 2;
  }
  if (!parsed)
    return 0;
  const ExportArgs& a = *parsed;
  if (a.format == ExportFormat::items_csv && !a.kind) {
    std::fprintf(stderr, "actorcrawl export: %s (see actorcrawl export --help)\n", missing_kind_message(a.db).c_str());
    return 2;
  }
  // Before anything is opened: an export over its own database would
  // replace the crawl with the export. Stdout too (`>> crawl.db`), through
  // the name Linux gives it.
  const bool to_stdout = a.output == "-";
  if (const std::string hit = database_file_named(a.db, to_stdout ? "/dev/stdout" : a.output); !hit.empty()) {
    const std::string output = to_stdout ? "stdout" : "--output '" + a.output + "'";
    std::fprintf(stderr, "actorcrawl export: %s is %s; an export never writes over it (choose another file)\n",
                 output.c_str(), hit.c_str());
    return 2;
  }
  std::signal(SIGINT, on_export_signal);
  std::signal(SIGTERM, on_export_signal);
  try {
    CrawlExport source(a.db);  // the database first: a bad one creates no file
    // Not an error: a rule that matched no page leaves no item, and a
    // script exporting each configured kind should get its empty file. But
    // a misspelt kind would look the same, so it is said.
    if (a.kind && !source.has_items_of(*a.kind)) {
      const std::string kinds = source.item_kinds_listed();
      std::fprintf(stderr, "actorcrawl export: no items of kind '%s' in the database (%s); the export is empty\n",
                   a.kind->c_str(), kinds.empty() ? "it holds no items" : ("its kinds: " + kinds).c_str());
    }
    ProgressBar bar(!a.quiet && ::isatty(STDERR_FILENO) == 1);
    const ExportProgress progress = [&bar](std::int64_t done, std::int64_t total) { bar(done, total); };
    if (a.output == "-") {
      std::ios::sync_with_stdio(false);
      source.write(a.format, a.graph, std::cout, progress, a.kind, a.changes);
    } else {
      PendingFile file(a.output, a.db);
      source.write(a.format, a.graph, file.stream(), progress, a.kind, a.changes);
      file.commit();
    }
    return 0;
  } catch (const Interrupted&) {
    if (a.output == "-")
      std::fprintf(stderr, "\nactorcrawl export: interrupted\n");
    else
      std::fprintf(stderr, "\nactorcrawl export: interrupted; '%s' was not written\n", a.output.c_str());
    return 130;
  } catch (const ExportError& e) {
    if (e.kind() == ExportError::Kind::write_failed)
      std::fprintf(stderr, "actorcrawl export: cannot write '%s': %s\n", a.output == "-" ? "stdout" : a.output.c_str(),
                   e.what());
    else
      std::fprintf(stderr, "actorcrawl export: database error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorcrawl export: %s\n", e.what());
    return 1;
  }
}

}  // namespace actorcrawl
