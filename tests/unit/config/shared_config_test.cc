// What a worker node crawls with: the coordinator's configuration read back
// from its text, but for the node's own keys.
#include "core/config/shared_config.h"

#include <catch2/catch.hpp>

using namespace actorcrawl;

TEST_CASE("shared config: every key of the coordinator travels, a node keeps its own", "[shared_config]") {
  CrawlConfig coordinator;
  coordinator.seeds = {"http://a.test/", "http://b.test/x"};
  coordinator.max_pages = 77;
  coordinator.politeness_delay_ms = 250;
  coordinator.allowed_domains = {"a.test", "b.test"};
  coordinator.processors = {"html_links", R"({"name": "words", "exec": ["python3", "words.py"], "timeout": "5s"})"};
  coordinator.extract_rules = R"([{"name": "product", "fields": {"z": {"css": "h1"}, "a": {"xpath": "//p"}}}])";
  coordinator.user_agent = "bot \"quoted\" / 1.0";
  coordinator.concurrent_workers = 0;
  coordinator.parse_lanes = 8;
  coordinator.warc_dir = "coordinator-warc";
  coordinator.bodies_dir = "";
  coordinator.given["max_pages"] = "option '--max-pages'";

  CrawlConfig node;
  node.concurrent_workers = 4;
  node.transfers_per_worker = 16;
  node.parse_lanes = 2;
  node.warc_dir = "node-warc";
  node.bodies_dir = "node-bodies";
  node.connect = "10.0.0.1:7788";
  node.max_pages = 5;  // not a node key: the coordinator's counts

  const CrawlConfig out =
    node_crawl_config(node, shared_config_text(coordinator), given_keys(coordinator), "crawl-b:311");
  CHECK(out.seeds == coordinator.seeds);
  CHECK(out.max_pages == 77);
  CHECK(out.politeness_delay_ms == 250);
  CHECK(out.allowed_domains == coordinator.allowed_domains);
  CHECK(out.processors == std::vector<std::string>{
                            "html_links", R"({"name":"words","exec":["python3","words.py"],"timeout":"5s"})"});
  // The rules keep their fields in the order written.
  CHECK(out.extract_rules.find("\"z\"") < out.extract_rules.find("\"a\""));
  CHECK(out.user_agent == coordinator.user_agent);
  CHECK(out.concurrent_workers == 4);
  CHECK(out.transfers_per_worker == 16);
  CHECK(out.parse_lanes == 2);
  CHECK(out.warc_dir == "node-warc");
  CHECK(out.bodies_dir == "node-bodies");
  CHECK(out.connect == "10.0.0.1:7788");
  // Its WARC files are its own, named by the node.
  CHECK(out.warc_prefix == coordinator.warc_prefix + "-crawl-b_311");
  CHECK(file_safe_node_name("crawl-b:311/../x y.z") == "crawl-b_311_.._x_y.z");
  // The keys the coordinator's user gave, and only those.
  CHECK(out.given.size() == 1);
  CHECK(out.given.count("max_pages") == 1);
  CHECK(is_node_key("parse_lanes"));
  CHECK_FALSE(is_node_key("max_pages"));
  CHECK_FALSE(is_node_key("processors"));
}

TEST_CASE("shared config: text that is no configuration is a ConfigError", "[shared_config]") {
  CHECK_THROWS_AS(node_crawl_config(CrawlConfig{}, "max_pages: [", {}, "n"), ConfigError);
  CHECK_THROWS_AS(node_crawl_config(CrawlConfig{}, "a_key_of_a_newer_build: 1\n", {}, "n"), ConfigError);
}
