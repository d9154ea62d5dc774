#include "core/warc/warc_archive.h"

#include <algorithm>

#include "core/report/console_log.h"
#include "core/config/version.h"

namespace actorcrawl {

WarcArchive::WarcArchive(Settings settings)
    : writer_(std::move(settings.files)), digests_(settings.digest_index_bytes) {}

void WarcArchive::archive(const HttpExchange& x) {
  if (x.response_head.empty())
    return;  // nothing was captured: the fetch ran without archiving
  try {
    write(x);
  } catch (const std::exception& e) {
    // No random bytes for an id, no memory for a record: this response is
    // not archived, the crawl (and the lane that called) goes on.
    failed(e.what());
  }
}

void WarcArchive::failed(const std::string& why) {
  // Logged at the first failure and then every 1000th, so a full disk
  // does not bury the console.
  const auto count = ++failed_;
  if (count == 1 || count % 1000 == 0)
    log_line(LogLevel::error, "warc: " + why + " (" + std::to_string(count) +
                                " responses not archived so far; the crawl goes on)");
}

void WarcArchive::write(const HttpExchange& x) {
  const std::string payload = warc_sha1(x.body);
  // A truncated body is never deduplicated: its record must say so itself.
  // An empty one gains nothing from a revisit.
  const bool dedupable = !x.truncated && !x.body.empty();
  std::optional<RevisitTarget> original = dedupable ? digests_.find(payload) : std::nullopt;
  // The same payload as the page an earlier run stored: a revisit of that
  // page, whose record this archive does not know (another run's file).
  if (!original && dedupable && !x.not_modified && payload == x.previous_digest)
    original = RevisitTarget{std::string{}, x.target_uri, 0};
  RecordIds ids;
  ids.request_id = new_record_id();
  ids.response_id = new_record_id();
  const std::string error = writer_.append([&](const std::string& warcinfo_id) {
    ids.warcinfo_id = warcinfo_id;
    std::vector<WarcRecord> records;
    records.push_back(request_record(x, ids));
    if (x.not_modified)
      records.push_back(not_modified_record(x, ids));
    else
      records.push_back(original ? revisit_record(x, ids, payload, *original) : response_record(x, ids));
    return records;
  });
  if (!error.empty()) {
    failed(error);
    return;
  }
  if (original || x.not_modified) {
    ++revisits_;
    return;
  }
  ++responses_;
  if (dedupable)
    digests_.remember(payload, RevisitTarget{ids.response_id, x.target_uri, x.date_ms});
}

WarcArchive::Counts WarcArchive::counts() const { return Counts{responses_.load(), revisits_.load(), failed_.load()}; }

bool archives_responses(const CrawlConfig& config) {
  return std::find(config.processors.begin(), config.processors.end(), "warc") != config.processors.end();
}

std::vector<std::pair<std::string, std::string>> warcinfo_fields(const CrawlConfig& config) {
  return {
    {"software", std::string{"actorcrawl/"} + actorcrawl_version()},
    {"format", "WARC File Format 1.1"},
    {"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
    {"robots", config.respect_robots_txt ? "classic" : "ignore"},
    {"http-header-user-agent", config.user_agent},
  };
}

std::shared_ptr<WarcArchive> open_warc_archive(const CrawlConfig& config) {
  if (!archives_responses(config))
    return nullptr;
  WarcArchive::Settings s;
  s.files.dir = config.warc_dir;
  s.files.prefix = config.warc_prefix;
  s.files.max_file_bytes = config.warc_max_bytes;
  s.files.warcinfo_fields = warcinfo_fields(config);
  try {
    auto archive = std::make_shared<WarcArchive>(std::move(s));
    if (const auto n = archive->writer().unfinished_removed(); n > 0)
      log_line(LogLevel::warn, "warc: deleted " + std::to_string(n) + " unfinished file(s) a stopped crawl left "
                               "before their warcinfo was whole");
    const TailRepair& r = archive->writer().repaired();
    if (r.cut_bytes > 0)
      log_line(LogLevel::warn, "warc: cut a torn record (" + std::to_string(r.cut_bytes) + " bytes) off the end of the "
                               "last file, which keeps its first " + std::to_string(r.kept_bytes) + " bytes");
    return archive;
  } catch (const std::exception& e) {
    throw ConfigError(e.what());
  }
}

}  // namespace actorcrawl
