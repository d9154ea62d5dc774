#include "core/config/shared_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <variant>

namespace actorcrawl {

namespace {

constexpr std::array<std::string_view, 19> kNodeKeys = {
  "concurrent_workers", "transfers_per_worker", "parse_lanes", "scheduler_threads", "warc_dir", "save_pages_dir",
  "bodies_dir", "trace_path", "node_id", "connect", "listen", "tls_cert", "tls_key", "tls_ca",
  "heartbeat_interval_ms", "peer_timeout_ms", "reconnect_timeout_ms", "progress_interval_ms", "report_timings"};

// Copies one key's value from `from` to `to`.
void copy_key(const ConfigKey& key, const CrawlConfig& from, CrawlConfig& to) {
  std::visit([&](auto member) { to.*member = from.*member; }, key.member);
}

}  // namespace

bool is_node_key(std::string_view key) {
  return std::find(kNodeKeys.begin(), kNodeKeys.end(), key) != kNodeKeys.end();
}

std::string shared_config_text(const CrawlConfig& coordinator) { return config_yaml(coordinator); }

std::vector<std::string> given_keys(const CrawlConfig& coordinator) {
  std::vector<std::string> out;
  for (const auto& [key, source] : coordinator.given)
    out.push_back(key);
  return out;
}

CrawlConfig node_crawl_config(const CrawlConfig& node, const std::string& text,
                              const std::vector<std::string>& given, const std::string& node_name) {
  CrawlConfig out;
  apply_yaml(text, "the coordinator's configuration", out);
  out.given.clear();
  for (const auto& key : given)
    out.given[key] = "the coordinator's key '" + key + "'";
  for (const auto& key : config_keys())
    if (is_node_key(key.name))
      copy_key(key, node, out);
  out.warc_prefix += "-" + file_safe_node_name(node_name);
  return out;
}

std::string file_safe_node_name(const std::string& node_name) {
  std::string name;
  for (char c : node_name)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return name;
}

}  // namespace actorcrawl
