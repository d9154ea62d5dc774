// One page of a crawl as a record of the page exports: a JSON Lines line
// (everything the page row holds, with its links in document order) and a
// CSV row (the page row's columns, the links counted). docs/exports.md
// lists the fields.
#pragma once

#include <string>

#include "core/export/crawl_scan.h"

namespace actorcrawl {

// One line, "\n" included: valid UTF-8 JSON whatever the page holds
// (invalid bytes become U+FFFD); never throws on content.
void append_jsonl_page(std::string& out, const ExportPage& page);

// {"url":...,"run":N,"change":"changed"} and "\n": one recorded change of
// the `changes` export.
void append_jsonl_change(std::string& out, const ExportChange& change);

// The CSV's header row, and one page's row; both end in CRLF (RFC 4180).
void append_csv_header(std::string& out);
void append_csv_page(std::string& out, const ExportPage& page);

}  // namespace actorcrawl
