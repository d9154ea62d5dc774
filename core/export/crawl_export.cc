#include "core/export/crawl_export.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/export/crawl_scan.h"
#include "core/export/graph_writers.h"
#include "core/export/item_records.h"
#include "core/export/page_records.h"

namespace actorcrawl {

namespace {

// Progress is told every this many rows (and at the end).
constexpr std::int64_t kProgressEvery = 4096;
// Records collect in a buffer written out when this full.
constexpr std::size_t kFlushBytes = 64 * 1024;

struct FormatInfo {
  ExportFormat format;
  const char* name;
  const char* extension;
  const char* media_type;
};

constexpr FormatInfo kFormats[] = {
  {ExportFormat::jsonl, "jsonl", "jsonl", "application/x-ndjson; charset=utf-8"},
  {ExportFormat::csv, "csv", "csv", "text/csv; charset=utf-8; header=present"},
  {ExportFormat::graphml, "graphml", "graphml", "application/graphml+xml; charset=utf-8"},
  {ExportFormat::gexf, "gexf", "gexf", "application/gexf+xml; charset=utf-8"},
  {ExportFormat::dot, "dot", "dot", "text/vnd.graphviz; charset=utf-8"},
  {ExportFormat::items, "items", "jsonl", "application/x-ndjson; charset=utf-8"},
  {ExportFormat::items_csv, "items-csv", "csv", "text/csv; charset=utf-8; header=present"},
  {ExportFormat::changes, "changes", "jsonl", "application/x-ndjson; charset=utf-8"},
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

// Records collect in a buffer written out when kFlushBytes full (and at
// the end): one write for many small records.
void write_out(std::ostream& out, std::string& buffer) {
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.clear();
}

void write_when_full(std::ostream& out, std::string& buffer) {
  if (buffer.size() >= kFlushBytes)
    write_out(out, buffer);
}

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
  if (format == ExportFormat::csv)
    append_csv_header(buffer);
  scan.pages(true, [&](const ExportPage& page) {
    if (format == ExportFormat::csv)
      append_csv_page(buffer, page);
    else
      append_jsonl_page(buffer, page);
    write_when_full(out, buffer);
    tally.row();
  });
  write_out(out, buffer);
  tally.finish();
}

// One JSON Lines line per item, in item_id order.
void write_items(CrawlScan& scan, const std::optional<std::string>& kind, std::ostream& out,
                 const ExportProgress& progress) {
  Tally tally(out, scan.item_count(kind), progress);
  std::string buffer;
  scan.items(kind, [&](const ExportItem& item) {
    append_jsonl_item(buffer, item);
    write_when_full(out, buffer);
    tally.row();
  });
  write_out(out, buffer);
  tally.finish();
}

// One kind's items as CSV. The header must name every key before the
// first row, and any item may bring a new one: a first pass gathers the
// keys (holding the keys, not the items), a second writes the rows. Both
// read the same snapshot (CrawlScan's one transaction), so the second
// meets no key the first did not.
void write_items_csv(CrawlScan& scan, const std::string& kind, std::ostream& out, const ExportProgress& progress) {
  Tally tally(out, 2 * scan.item_count(kind), progress);
  ItemColumns columns;
  scan.items(kind, [&](const ExportItem& item) {
    columns.add_keys_of(item.item);
    tally.row();
  });
  std::string buffer;
  columns.append_header(buffer);
  scan.items(kind, [&](const ExportItem& item) {
    columns.append_row(buffer, item.url, item.item);
    write_when_full(out, buffer);
    tally.row();
  });
  write_out(out, buffer);
  tally.finish();
}

// One JSON Lines line per recorded change: {"url", "run", "change"}.
void write_changes(CrawlScan& scan, const ChangesFilter& filter, std::ostream& out, const ExportProgress& progress) {
  Tally tally(out, scan.page_change_count(filter.include_new, filter.since_run), progress);
  std::string buffer;
  scan.page_changes(filter.include_new, filter.since_run, [&](const ExportChange& change) {
    append_jsonl_change(buffer, change);
    write_when_full(out, buffer);
    tally.row();
  });
  write_out(out, buffer);
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

const char* export_format_names() { return "jsonl, csv, graphml, gexf, dot, items, items-csv, changes"; }
const char* export_graph_names() { return "domains, pages"; }

const char* export_format_name(ExportFormat format) { return info_of(format).name; }
const char* file_extension(ExportFormat format) { return info_of(format).extension; }
const char* media_type(ExportFormat format) { return info_of(format).media_type; }

bool is_graph_format(ExportFormat format) {
  return format == ExportFormat::graphml || format == ExportFormat::gexf || format == ExportFormat::dot;
}

bool is_items_format(ExportFormat format) { return format == ExportFormat::items || format == ExportFormat::items_csv; }

struct CrawlExport::Impl {
  explicit Impl(const std::string& path) : scan(path) {}
  CrawlScan scan;
};

CrawlExport::CrawlExport(const std::string& db_path) : impl_(std::make_unique<Impl>(db_path)) {}
CrawlExport::~CrawlExport() = default;

void CrawlExport::write(ExportFormat format, ExportGraph graph, std::ostream& out, const ExportProgress& progress,
                        const std::optional<std::string>& kind, const ChangesFilter& changes) {
  if (format == ExportFormat::changes)
    write_changes(impl_->scan, changes, out, progress);
  else if (format == ExportFormat::items)
    write_items(impl_->scan, kind, out, progress);
  else if (format == ExportFormat::items_csv && !kind)
    throw std::invalid_argument("items-csv is one kind's items: it needs a kind");
  else if (format == ExportFormat::items_csv)
    write_items_csv(impl_->scan, *kind, out, progress);
  else if (!is_graph_format(format))
    write_pages(impl_->scan, format, out, progress);
  else if (graph == ExportGraph::domains)
    write_domain_graph(impl_->scan, graph_format_of(format), out, progress);
  else
    write_page_graph(impl_->scan, graph_format_of(format), out, progress);
}

std::vector<std::string> CrawlExport::item_kinds(std::size_t limit) { return impl_->scan.item_kinds(limit); }

std::string CrawlExport::item_kinds_listed(std::size_t limit) {
  const auto kinds = impl_->scan.item_kinds(limit + 1);
  std::string listed;
  for (std::size_t i = 0; i < kinds.size() && i < limit; ++i)
    listed += (i ? ", " : "") + kinds[i];
  if (kinds.size() > limit)
    listed += ", ...";
  return listed;
}

bool CrawlExport::has_items_of(const std::string& kind) { return impl_->scan.has_items_of(kind); }

}  // namespace actorcrawl
