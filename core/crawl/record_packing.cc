#include "core/crawl/record_packing.h"

#include <cstdint>
#include <vector>

#include "core/crawl/link_packing.h"
#include "core/crawl/packed_bytes.h"

namespace actorcrawl {

namespace {

// Packing and unpacking name every field; a field added to PageRow (or its
// parts) without them would silently not cross. x86-64 and arm64 lay these
// out alike.
static_assert(sizeof(PageRow) == 728, "a PageRow field was added or changed: pack it here and in messages/storage.h");
static_assert(sizeof(KeptBody) == 72, "a KeptBody field was added or changed: pack it here");
static_assert(sizeof(ExtractedItem) == 64, "an ExtractedItem field was added or changed: pack it here");
static_assert(sizeof(ProcessorFailure) == 96, "a ProcessorFailure field was added or changed: pack it here");
static_assert(sizeof(CrawlJob) == 288, "a CrawlJob field was added or changed: pack it here and in messages/frontier.h");

void put_flag(std::string& out, bool b) { out.push_back(b ? '\1' : '\0'); }

void put_strings(std::string& out, const std::vector<std::string>& strings) {
  put_number(out, strings.size());
  for (const auto& s : strings)
    put_bytes(out, s);
}

// Reads a list's count and sizes `list` for it, no larger than what is left
// could hold (each entry takes `min_bytes` at least), so a count from the
// wire cannot allocate what its bytes do not back.
template <class List>
bool list_count(PackedReader& in, List& list, std::size_t min_bytes, std::uint32_t& count) {
  if (!in.length(count) || count > in.left() / min_bytes)
    return false;
  list.clear();
  list.reserve(count);
  return true;
}

bool read_strings(PackedReader& in, std::vector<std::string>& strings) {
  std::uint32_t count = 0;
  if (!list_count(in, strings, 1, count))
    return false;
  for (std::uint32_t i = 0; i < count; ++i)
    if (!in.bytes(strings.emplace_back()))
      return false;
  return true;
}

bool read_row(PackedReader& in, PageRow& row) {
  std::uint32_t count = 0;
  std::string_view links;
  if (!(in.bytes(row.url) && in.bytes(row.host_key) && in.int32(row.depth) && in.int32(row.status_code) &&
        in.bytes(row.content_type) && in.bytes(row.title) && in.bytes(row.description) &&
        in.signed_number(row.bytes) && in.signed_number(row.fetch_ms) && in.signed_number(row.fetched_at_ms) &&
        in.bytes(row.error) && in.bytes(row.final_url) && in.bytes(row.redirect_chain) && in.flag(row.truncated) &&
        in.bytes(row.canonical_url) && in.int32(row.attempts) && in.bytes(row.robots_directives) &&
        in.bytes(links) && unpack_link_rows(links, row.links) && read_strings(in, row.link_host_keys)))
    return false;
  if (!in.signed_number(row.links_dropped) || !list_count(in, row.items, 2, count))
    return false;
  for (std::uint32_t i = 0; i < count; ++i) {
    ExtractedItem& item = row.items.emplace_back();
    if (!in.bytes(item.kind) || !in.bytes(item.json))
      return false;
  }
  if (!list_count(in, row.processor_failures, 3, count))
    return false;
  for (std::uint32_t i = 0; i < count; ++i) {
    ProcessorFailure& failure = row.processor_failures.emplace_back();
    if (!in.bytes(failure.processor) || !in.bytes(failure.reason) || !in.bytes(failure.detail))
      return false;
  }
  return in.number(row.processors_took) && in.number(row.processors_failed) && in.bytes(row.etag) &&
         in.bytes(row.last_modified) && in.bytes(row.content_digest) && in.bytes(row.charset) &&
         in.bytes(row.body.encoding) && in.signed_number(row.body.size) && in.bytes(row.body.data) &&
         in.flag(row.not_modified) && in.done();
}

bool read_job(PackedReader& in, CrawlJob& job) {
  std::uint32_t count = 0;
  if (!(in.number(job.seq) && in.bytes(job.url) && in.bytes(job.host_key) && in.int32(job.depth) &&
        in.uint32(job.attempt) && in.bytes(job.fetch_url) && in.bytes(job.fetch_host_key) &&
        read_strings(in, job.hop_urls)))
    return false;
  if (!list_count(in, job.hop_statuses, 1, count))
    return false;
  for (std::uint32_t i = 0; i < count; ++i)
    if (!in.int32(job.hop_statuses.emplace_back()))
      return false;
  return in.bytes(job.etag) && in.bytes(job.last_modified) && in.bytes(job.stored_digest) && in.done();
}

}  // namespace

void pack_page_row(const PageRow& row, std::string& out) {
  const std::size_t links_size = packed_link_rows_size(row.links);
  // The fields that may be large, and a little for the rest.
  out.reserve(out.size() + links_size + row.body.data.size() + row.url.size() + row.final_url.size() +
              row.redirect_chain.size() + row.title.size() + row.description.size() + 256);
  put_bytes(out, row.url);
  put_bytes(out, row.host_key);
  put_signed(out, row.depth);
  put_signed(out, row.status_code);
  put_bytes(out, row.content_type);
  put_bytes(out, row.title);
  put_bytes(out, row.description);
  put_signed(out, row.bytes);
  put_signed(out, row.fetch_ms);
  put_signed(out, row.fetched_at_ms);
  put_bytes(out, row.error);
  put_bytes(out, row.final_url);
  put_bytes(out, row.redirect_chain);
  put_flag(out, row.truncated);
  put_bytes(out, row.canonical_url);
  put_signed(out, row.attempts);
  put_bytes(out, row.robots_directives);
  put_number(out, links_size);
  append_link_rows(out, row.links);
  put_strings(out, row.link_host_keys);
  put_signed(out, row.links_dropped);
  put_number(out, row.items.size());
  for (const auto& item : row.items) {
    put_bytes(out, item.kind);
    put_bytes(out, item.json);
  }
  put_number(out, row.processor_failures.size());
  for (const auto& failure : row.processor_failures) {
    put_bytes(out, failure.processor);
    put_bytes(out, failure.reason);
    put_bytes(out, failure.detail);
  }
  put_number(out, row.processors_took);
  put_number(out, row.processors_failed);
  put_bytes(out, row.etag);
  put_bytes(out, row.last_modified);
  put_bytes(out, row.content_digest);
  put_bytes(out, row.charset);
  put_bytes(out, row.body.encoding);
  put_signed(out, row.body.size);
  put_bytes(out, row.body.data);
  put_flag(out, row.not_modified);
}

std::string pack_page_row(const PageRow& row) {
  std::string out;
  pack_page_row(row, out);
  return out;
}

bool unpack_page_row(std::string_view packed, PageRow& row) {
  PackedReader in(packed);
  if (read_row(in, row))
    return true;
  row = PageRow{};
  return false;
}

std::string pack_crawl_job(const CrawlJob& job) {
  std::string out;
  out.reserve(job.url.size() + job.host_key.size() + job.fetch_url.size() + 64);
  put_number(out, job.seq);
  put_bytes(out, job.url);
  put_bytes(out, job.host_key);
  put_signed(out, job.depth);
  put_number(out, job.attempt);
  put_bytes(out, job.fetch_url);
  put_bytes(out, job.fetch_host_key);
  put_strings(out, job.hop_urls);
  put_number(out, job.hop_statuses.size());
  for (const auto status : job.hop_statuses)
    put_signed(out, status);
  put_bytes(out, job.etag);
  put_bytes(out, job.last_modified);
  put_bytes(out, job.stored_digest);
  return out;
}

bool unpack_crawl_job(std::string_view packed, CrawlJob& job) {
  PackedReader in(packed);
  if (read_job(in, job))
    return true;
  job = CrawlJob{};
  return false;
}

}  // namespace actorcrawl
