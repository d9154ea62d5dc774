// What a coordinator hands each worker node of its crawl's configuration,
// and what a node keeps of its own. A worker node runs the coordinator's
// page processing (processors, extraction rules, plugins, link selection,
// limits), so it gets every key; its own are the ones about the node
// itself: how much it runs at once (workers, transfers, parse lanes), where
// it writes (warc_dir, save_pages_dir, bodies_dir, trace), how it reaches the
// coordinator (connect, TLS, timeouts) and its name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/config/crawl_config.h"

namespace actorcrawl {

// The keys a worker node keeps of its own configuration.
bool is_node_key(std::string_view key);

// The coordinator's configuration as text for the join reply, and the keys
// its user gave (so the node judges the same keys the coordinator did).
std::string shared_config_text(const CrawlConfig& coordinator);
std::vector<std::string> given_keys(const CrawlConfig& coordinator);

// The configuration a worker node crawls with: the coordinator's (`text`,
// `given`), but for is_node_key() keys, which are `node`'s. Its WARC files
// are named by the node: warc_prefix gets "-<node name>" appended, so
// every node's files can be gathered into one directory. Throws
// ConfigError when `text` does not read (a coordinator of another build).
CrawlConfig node_crawl_config(const CrawlConfig& node, const std::string& text,
                              const std::vector<std::string>& given, const std::string& node_name);

// `node_name` as a part of a file's name: any byte but letters, digits,
// '.', '_' and '-' becomes '_'.
std::string file_safe_node_name(const std::string& node_name);

}  // namespace actorcrawl
