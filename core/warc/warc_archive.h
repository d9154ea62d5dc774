// The `warc` processor (processors: [html_links, warc]): every response the
// crawl receives, written as WARC/1.1 records while it crawls (docs/warc.md).
// Each exchange becomes a request record and a response record, or a revisit
// record when its payload repeats one already written (WarcDigestIndex).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/page/response_archive.h"
#include "core/config/crawl_config.h"
#include "core/warc/warc_digest_index.h"
#include "core/warc/warc_writer.h"

namespace actorcrawl {

class WarcArchive final : public ResponseArchive {
 public:
  // 4 MiB of digests: about 15,000 distinct payloads with their URLs.
  static constexpr std::size_t kDigestIndexBytes = 4u << 20;

  struct Settings {
    WarcWriter::Settings files;
    std::size_t digest_index_bytes = kDigestIndexBytes;
  };

  // Throws std::runtime_error naming the directory when it cannot be written.
  explicit WarcArchive(Settings settings);

  void archive(const HttpExchange& exchange) override;

  struct Counts {
    std::int64_t responses = 0;
    std::int64_t revisits = 0;
    std::int64_t failed = 0;  // exchanges not written (a full disk)
  };
  Counts counts() const;
  const WarcWriter& writer() const { return writer_; }
  const WarcDigestIndex& digests() const { return digests_; }

 private:
  void write(const HttpExchange& exchange);
  void failed(const std::string& why);

  WarcWriter writer_;
  WarcDigestIndex digests_;
  std::atomic<std::int64_t> responses_{0};
  std::atomic<std::int64_t> revisits_{0};
  std::atomic<std::int64_t> failed_{0};
};

// Whether the configuration's processor chain has `warc`.
bool archives_responses(const CrawlConfig& config);
// The warcinfo block's lines for this crawl: software, format, robots
// policy, user agent. No host name or address of the machine.
std::vector<std::pair<std::string, std::string>> warcinfo_fields(const CrawlConfig& config);
// The archive the configuration asks for, or nullptr when `warc` is not in
// processors. Throws ConfigError naming warc_dir when it cannot be written.
std::shared_ptr<WarcArchive> open_warc_archive(const CrawlConfig& config);

}  // namespace actorcrawl
