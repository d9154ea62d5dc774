// `actorcrawl export` and GET /crawl/{id}/export: a crawl database written
// out as JSON Lines or CSV (its pages) or as GraphML, GEXF or DOT (its
// domain graph, or its page graph), streamed: rows are read one at a time
// (crawl_scan.h) and written as they come, so a database of a million
// pages exports in the memory of one page. docs/exports.md describes each
// format's fields.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/store/export_error.h"

namespace actorcrawl {

enum class ExportFormat { jsonl, csv, graphml, gexf, dot };
enum class ExportGraph { domains, pages };

// By name as typed ("jsonl", "graphml", ...; "domains", "pages"); nullopt
// for any other.
std::optional<ExportFormat> export_format_named(std::string_view name);
std::optional<ExportGraph> export_graph_named(std::string_view name);
// "jsonl, csv, graphml, gexf, dot", for messages that list the choices.
const char* export_format_names();
const char* export_graph_names();

// The file extension ("graphml") and the media type of each format.
const char* file_extension(ExportFormat format);
const char* media_type(ExportFormat format);
// GraphML, GEXF and DOT: the graph formats (--graph applies to them).
bool is_graph_format(ExportFormat format);

// Rows written so far of `total` (pages for the page formats and the page
// graph, where each page is counted once for its node and once for its
// edges; nodes and edges for the domain graph). Called now and then, and
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
  // formats. Throws ExportError: read_failed, or write_failed as soon as
  // `out` fails (the rest is not read). One call per CrawlExport.
  void write(ExportFormat format, ExportGraph graph, std::ostream& out, const ExportProgress& progress = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
