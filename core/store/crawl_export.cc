#include "core/store/crawl_export.h"

#include <algorithm>
#include <string>

#include "core/store/crawl_scan.h"
#include "core/store/graph_writers.h"
#include "core/store/page_records.h"

namespace actorcrawl {

namespace {

// Progress is told every this many rows (and at the end).
constexpr std::int64_t kProgressEvery = 4096;
// Page records collect in a buffer written out when this full.
constexpr std::size_t kFlushBytes = 64 * 1024;

struct FormatInfo {
  ExportFormat format;
  const char* name;
  const char* media_type;
};

constexpr FormatInfo kFormats[] = {
  {ExportFormat::jsonl, "jsonl", "application/x-ndjson; charset=utf-8"},
  {ExportFormat::csv, "csv", "text/csv; charset=utf-8; header=present"},
  {ExportFormat::graphml, "graphml", "application/graphml+xml; charset=utf-8"},
  {ExportFormat::gexf, "gexf", "application/gexf+xml; charset=utf-8"},
  {ExportFormat::dot, "dot", "text/vnd.graphviz; charset=utf-8"},
};

const FormatInfo& info_of(ExportFormat format) {
  for (const auto& f : kFormats)
    if (f.format == format)
      return f;
  return kFormats[0];
}

std::optional<std::string> text_value(const OptionalText& t) { return t; }
std::optional<std::string> int_value(const OptionalInt& i) {
  return i ? std::optional<std::string>(std::to_string(*i)) : std::nullopt;
}
std::string bool_value(bool b) { return b ? "true" : "false"; }

// Counts rows, tells the progress callback now and then, and stops the
// export as soon as the output has failed.
class Tally {
 public:
  Tally(std::ostream& out, std::int64_t total, const ExportProgress& progress)
      : out_(out), total_(total), progress_(progress) {
    tell();
  }
  void row() {
    if (!out_)
      throw ExportError(ExportError::Kind::write_failed, "the output stopped taking data");
    if (++done_ % kProgressEvery == 0)
      tell();
  }
  void finish() {
    out_.flush();
    if (!out_)
      throw ExportError(ExportError::Kind::write_failed, "the output stopped taking data");
    // A crawl that wrote meanwhile is not in this snapshot; the count was
    // taken in the same one, so done == total here.
    done_ = total_;
    tell();
  }

 private:
  void tell() {
    if (progress_)
      progress_(std::min(done_, total_), total_);
  }
  std::ostream& out_;
  std::int64_t total_;
  const ExportProgress& progress_;
  std::int64_t done_ = 0;
};

void write_pages(CrawlScan& scan, ExportFormat format, std::ostream& out, const ExportProgress& progress) {
  Tally tally(out, scan.page_count(), progress);
  std::string buffer;
  const auto flush = [&] {
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  };
  if (format == ExportFormat::csv)
    append_csv_header(buffer);
  scan.pages(true, [&](const ExportPage& page) {
    if (format == ExportFormat::csv)
      append_csv_page(buffer, page);
    else
      append_jsonl_page(buffer, page);
    if (buffer.size() >= kFlushBytes)
      flush();
    tally.row();
  });
  flush();
  tally.finish();
}

GraphFormat graph_format_of(ExportFormat format) {
  switch (format) {
    case ExportFormat::gexf: return GraphFormat::gexf;
    case ExportFormat::dot: return GraphFormat::dot;
    default: return GraphFormat::graphml;
  }
}

void write_domain_graph(CrawlScan& scan, GraphFormat format, std::ostream& out, const ExportProgress& progress) {
  using Type = GraphAttribute::Type;
  const GraphSchema schema{"domains", {{"crawl_count", Type::integer}, {"description", Type::text}}, {}, true};
  Tally tally(out, scan.node_count() + scan.edge_count(), progress);
  auto writer = make_graph_writer(format, schema, out);
  AttributeValues values(2);
  scan.domain_nodes([&](const DomainNode& n) {
    values[0] = int_value(n.crawl_count);
    values[1] = text_value(n.description);
    writer->node(n.name, values);
    tally.row();
  });
  const AttributeValues none;
  scan.domain_edges([&](const DomainEdge& e) {
    writer->edge(e.from, e.to, e.weight, none);
    tally.row();
  });
  writer->finish();
  tally.finish();
}

// Nodes: every page, then every link target without a page row; edges:
// every link, from its page's URL.
void write_page_graph(CrawlScan& scan, GraphFormat format, std::ostream& out, const ExportProgress& progress) {
  using Type = GraphAttribute::Type;
  const GraphSchema schema{"pages",
                           {{"crawled", Type::boolean},
                            {"status_code", Type::integer},
                            {"depth", Type::integer},
                            {"title", Type::text}},
                           {{"nofollow", Type::boolean}, {"position", Type::integer}},
                           false};
  Tally tally(out, 2 * scan.page_count(), progress);
  auto writer = make_graph_writer(format, schema, out);
  AttributeValues values(4);
  scan.pages(false, [&](const ExportPage& p) {
    values[0] = bool_value(true);
    values[1] = int_value(p.status_code);
    values[2] = int_value(p.depth);
    values[3] = text_value(p.title);
    writer->node(p.url, values);
    tally.row();
  });
  const AttributeValues target{bool_value(false), std::nullopt, std::nullopt, std::nullopt};
  scan.unfetched_targets([&](std::string_view url) {
    writer->node(url, target);
    if (!out)
      throw ExportError(ExportError::Kind::write_failed, "the output stopped taking data");
  });
  AttributeValues link_values(2);
  scan.pages(true, [&](const ExportPage& p) {
    for (const auto& link : p.links) {
      link_values[0] = bool_value(link.nofollow);
      link_values[1] = std::to_string(link.position);
      writer->edge(p.url, link.url, std::nullopt, link_values);
    }
    tally.row();
  });
  writer->finish();
  tally.finish();
}

}  // namespace

std::optional<ExportFormat> export_format_named(std::string_view name) {
  for (const auto& f : kFormats)
    if (name == f.name)
      return f.format;
  return std::nullopt;
}

std::optional<ExportGraph> export_graph_named(std::string_view name) {
  if (name == "domains")
    return ExportGraph::domains;
  if (name == "pages")
    return ExportGraph::pages;
  return std::nullopt;
}

const char* export_format_names() { return "jsonl, csv, graphml, gexf, dot"; }
const char* export_graph_names() { return "domains, pages"; }

const char* file_extension(ExportFormat format) { return info_of(format).name; }
const char* media_type(ExportFormat format) { return info_of(format).media_type; }

bool is_graph_format(ExportFormat format) {
  return format == ExportFormat::graphml || format == ExportFormat::gexf || format == ExportFormat::dot;
}

struct CrawlExport::Impl {
  explicit Impl(const std::string& path) : scan(path) {}
  CrawlScan scan;
};

CrawlExport::CrawlExport(const std::string& db_path) : impl_(std::make_unique<Impl>(db_path)) {}
CrawlExport::~CrawlExport() = default;

void CrawlExport::write(ExportFormat format, ExportGraph graph, std::ostream& out, const ExportProgress& progress) {
  if (!is_graph_format(format))
    write_pages(impl_->scan, format, out, progress);
  else if (graph == ExportGraph::domains)
    write_domain_graph(impl_->scan, graph_format_of(format), out, progress);
  else
    write_page_graph(impl_->scan, graph_format_of(format), out, progress);
}

}  // namespace actorcrawl
