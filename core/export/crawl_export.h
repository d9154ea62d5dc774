// `actorcrawl export` and GET /crawl/{id}/export: a crawl database written
// out as JSON Lines or CSV (its pages, or its items) or as GraphML, GEXF or
// DOT (its domain graph, or its page graph), streamed: rows are read one at
// a time (crawl_scan.h) and written as they come, so a database of a
// million pages exports in the memory of one page. docs/exports.md describes each
// format's fields.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/export/export_error.h"

namespace actorcrawl {

enum class ExportFormat { jsonl, csv, graphml, gexf, dot, items, items_csv, changes };

// Which recorded changes `changes` writes: those of runs after `since_run`
// (0: every run), changed and gone pages, and new ones too with
// `include_new`.
struct ChangesFilter {
  bool include_new = false;
  std::int64_t since_run = 0;
};
enum class ExportGraph { domains, pages };

// By name as typed ("jsonl", "graphml", "items-csv", ...; "domains",
// "pages"); nullopt for any other.
std::optional<ExportFormat> export_format_named(std::string_view name);
std::optional<ExportGraph> export_graph_named(std::string_view name);
// "jsonl, csv, graphml, gexf, dot, items, items-csv, changes", for messages that
// list the choices.
const char* export_format_names();
const char* export_graph_names();

// The name a format is chosen by ("items-csv"), its file extension ("csv")
// and its media type.
const char* export_format_name(ExportFormat format);
const char* file_extension(ExportFormat format);
const char* media_type(ExportFormat format);
// GraphML, GEXF and DOT: the graph formats (--graph applies to them).
bool is_graph_format(ExportFormat format);
// items and items-csv: the item formats (a kind applies to them; items-csv
// needs one, its columns being that kind's fields).
bool is_items_format(ExportFormat format);

// Rows written so far of `total` (pages for the page formats and the page
// graph, where each page is counted once for its node and once for its
// edges; nodes and edges for the domain graph; items for `items`, each
// counted twice for `items-csv`, once in the pass that gathers its columns
// and once in the pass that writes its row). Called now and then, and
// once at the end with done == total.
using ExportProgress = std::function<void(std::int64_t done, std::int64_t total)>;

class CrawlExport {
 public:
  // Opens `db_path` read-only, safe while a crawl writes it. Throws
  // ExportError (missing_database, not_a_crawl_database).
  explicit CrawlExport(const std::string& db_path);
  ~CrawlExport();
  CrawlExport(const CrawlExport&) = delete;
  CrawlExport& operator=(const CrawlExport&) = delete;

  // Writes the whole export to `out`. `graph` matters only to the graph
  // formats; `kind` only to the item formats, keeping that kind's items
  // (nullopt: every kind's, for `items`; `items-csv`, whose columns are one
  // kind's fields, throws std::invalid_argument without one, so callers
  // ask for it first, naming item_kinds_listed()). Throws ExportError:
  // read_failed, or write_failed as soon as `out` fails (the rest is not
  // read). One call per CrawlExport; the item_kinds questions may come
  // before it, in the same snapshot.
  void write(ExportFormat format, ExportGraph graph, std::ostream& out, const ExportProgress& progress = {},
             const std::optional<std::string>& kind = std::nullopt, const ChangesFilter& changes = {});

  // The kinds of items the database holds, sorted, at most `limit` (for
  // messages: each costs one index seek, whatever the number of items).
  std::vector<std::string> item_kinds(std::size_t limit);
  // The same for a message: "product, recipe", ", ..." after the first
  // `limit` when there are more; "" when the database holds no items.
  std::string item_kinds_listed(std::size_t limit = 20);
  // Whether the database holds an item of `kind`.
  bool has_items_of(const std::string& kind);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
