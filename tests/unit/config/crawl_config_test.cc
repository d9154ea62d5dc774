#include "core/config/crawl_config.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;
using namespace actorcrawl;

namespace {

// The message of the ConfigError that `fn` throws, or "(no error)" so a
// missing throw shows up in the comparison instead of as a separate failure.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string yaml_error(const std::string& text) {
  CrawlConfig config;
  return error_of([&] { apply_yaml(text, "test.yaml", config); });
}

CrawlConfig from_yaml(const std::string& text) {
  CrawlConfig config;
  apply_yaml(text, "test.yaml", config);
  return config;
}

// A fake environment: only the variables in the map exist.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

// A file path unique to this process and test, removed at scope exit.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = (fs::temp_directory_path() /
             ("crawl_config_test_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter++) + "_" + std::to_string(stamp) + ".yaml"))
              .string();
    std::ofstream out(path_, std::ios::binary);
    out << contents;
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const ConfigKey* key_named(const std::string& name) {
  for (const auto& key : config_keys())
    if (name == key.name)
      return &key;
  return nullptr;
}

using Strings = std::vector<std::string>;

}  // namespace

// ---------------------------------------------------------------------------
// The key table

TEST_CASE("config_keys: every documented key exists, once", "[config]") {
  const Strings spec_keys = {
    "seed_url", "seeds", "profile", "max_depth", "max_pages", "max_crawls_per_node",
    "max_subdomains_per_root", "max_outbound_links", "concurrent_workers", "request_timeout_ms",
    "retry_attempts", "retry_delay_ms", "politeness_delay_ms", "max_body_bytes", "max_redirects",
    "user_agent", "respect_robots_txt", "allowed_domains", "exclude_patterns", "strip_query_params",
    "revisit_after", "db_path", "metrics_path", "trace_path",
  };
  for (const auto& name : spec_keys) {
    INFO("key " << name);
    CHECK(key_named(name) != nullptr);
  }
  // Loader, flags, environment and help are all derived from the table, so
  // a duplicate name would make one of its entries unreachable.
  std::set<std::string> names;
  for (const auto& key : config_keys()) {
    INFO("key " << key.name);
    CHECK(names.insert(key.name).second);
    CHECK(std::string{key.help}.size() > 0);
  }
}

TEST_CASE("config_keys: kinds and ranges of the numeric keys", "[config]") {
  CHECK(key_named("max_depth")->kind == ValueKind::integer);
  CHECK(key_named("max_depth")->min == 0);
  CHECK(key_named("concurrent_workers")->min == 0);  // a coordinator may fetch nothing itself
  CHECK(key_named("request_timeout_ms")->kind == ValueKind::duration_ms);
  CHECK(key_named("politeness_delay_ms")->kind == ValueKind::duration_ms);
  CHECK(key_named("revisit_after")->kind == ValueKind::duration_ms);
  CHECK(key_named("max_body_bytes")->kind == ValueKind::bytes);
  CHECK(key_named("respect_robots_txt")->kind == ValueKind::boolean);
  CHECK(key_named("seeds")->kind == ValueKind::text_list);
  CHECK(key_named("seed_url")->kind == ValueKind::text_list);
  CHECK(key_named("profile")->choices == Strings{"site", "domains"});
}

TEST_CASE("CrawlConfig defaults", "[config]") {
  const CrawlConfig c;
  CHECK(c.seeds.empty());
  CHECK(c.profile == "site");
  CHECK(c.max_depth == 5);
  CHECK(c.max_pages == 1000);
  CHECK(c.max_crawls_per_node == 3);
  CHECK(c.max_subdomains_per_root == 3);
  CHECK(c.max_outbound_links == 10);
  CHECK(c.concurrent_workers == 3);
  CHECK(c.request_timeout_ms == 5000);
  CHECK(c.retry_attempts == 3);
  CHECK(c.retry_delay_ms == 5000);
  CHECK(c.politeness_delay_ms == 1000);
  CHECK(c.max_body_bytes == 1048576);
  CHECK(c.max_redirects == 5);
  CHECK(c.user_agent == "actorcrawl/0.1 (polite web crawler)");
  CHECK(c.respect_robots_txt);
  CHECK(c.allowed_domains.empty());
  CHECK(c.exclude_patterns.empty());
  CHECK(c.strip_query_params.empty());
  CHECK(c.revisit_after_ms == 0);
  CHECK(c.db_path == "actorcrawl.db");
  CHECK(c.metrics_path == "metrics.log");
  CHECK(c.trace_path.empty());
}

// ---------------------------------------------------------------------------
// Scalar parsers

TEST_CASE("parse_duration_ms: bare numbers are milliseconds, units scale", "[config]") {
  CHECK(parse_duration_ms("250") == 250);
  CHECK(parse_duration_ms("0") == 0);
  CHECK(parse_duration_ms("250ms") == 250);
  CHECK(parse_duration_ms("2s") == 2000);
  CHECK(parse_duration_ms("1.5s") == 1500);
  CHECK(parse_duration_ms("1m") == 60000);
  CHECK(parse_duration_ms("2min") == 120000);
  CHECK(parse_duration_ms("2h") == 7200000);
  CHECK(parse_duration_ms("1d") == 86400000);
  // Case and surrounding space do not matter; a space before the unit is fine.
  CHECK(parse_duration_ms(" 3S ") == 3000);
  CHECK(parse_duration_ms("3 s") == 3000);
}

TEST_CASE("parse_duration_ms: refuses what is not a duration", "[config]") {
  CHECK(error_of([] { parse_duration_ms("abc"); }) == "expected a duration, got 'abc'");
  CHECK(error_of([] { parse_duration_ms(""); }) == "expected a duration, got ''");
  CHECK(error_of([] { parse_duration_ms("-1s"); }) == "expected a duration, got '-1s'");
  CHECK(error_of([] { parse_duration_ms("5 parsecs"); }) == "expected a duration, got '5 parsecs'");
  CHECK(error_of([] { parse_duration_ms("1e3"); }) == "expected a duration, got '1e3'");
  CHECK(error_of([] { parse_duration_ms("."); }) == "expected a duration, got '.'");
  // A second decimal point is garbage, not "1.2 seconds and something".
  CHECK(error_of([] { parse_duration_ms("1.2.3s"); }) == "expected a duration, got '1.2.3s'");
  CHECK(error_of([] { parse_duration_ms("999999999999d"); }) ==
        "a duration out of range: '999999999999d'");
}

TEST_CASE("parse_byte_size: binary and decimal units", "[config]") {
  CHECK(parse_byte_size("1024") == 1024);
  CHECK(parse_byte_size("100b") == 100);
  CHECK(parse_byte_size("1KiB") == 1024);
  CHECK(parse_byte_size("1k") == 1024);
  CHECK(parse_byte_size("1kb") == 1000);
  CHECK(parse_byte_size("2MB") == 2000000);
  CHECK(parse_byte_size("1MiB") == 1048576);
  CHECK(parse_byte_size("1m") == 1048576);
  CHECK(parse_byte_size("1.5MiB") == 1572864);
  CHECK(parse_byte_size("1GiB") == 1073741824);
  CHECK(parse_byte_size("1gb") == 1000000000);
  CHECK(parse_byte_size(" 512 KiB ") == 524288);
  CHECK(error_of([] { parse_byte_size("1TB"); }) == "expected a size, got '1TB'");
  CHECK(error_of([] { parse_byte_size("huge"); }) == "expected a size, got 'huge'");
  CHECK(error_of([] { parse_byte_size("1..5k"); }) == "expected a size, got '1..5k'");
}

TEST_CASE("parse_boolean: the usual spellings, case-insensitive", "[config]") {
  for (const char* yes : {"true", "TRUE", "yes", "on", "1", " True "}) {
    INFO(yes);
    CHECK(parse_boolean(yes));
  }
  for (const char* no : {"false", "False", "no", "off", "0"}) {
    INFO(no);
    CHECK_FALSE(parse_boolean(no));
  }
  CHECK(error_of([] { parse_boolean("maybe"); }) == "expected true or false, got 'maybe'");
  CHECK(error_of([] { parse_boolean(""); }) == "expected true or false, got ''");
}

// ---------------------------------------------------------------------------
// YAML

TEST_CASE("yaml: every kind of key is read", "[config][yaml]") {
  const auto c = from_yaml(
    "seed_url: http://example.com/\n"
    "profile: domains\n"
    "max_depth: 0\n"
    "max_pages: 20\n"
    "concurrent_workers: 8\n"
    "request_timeout_ms: 2s\n"
    "politeness_delay_ms: 250\n"
    "retry_delay_ms: 1.5s\n"
    "max_body_bytes: 512KiB\n"
    "max_redirects: 0\n"
    "user_agent: \"testbot/1.0 (+http://example.com/bot)\"\n"
    "respect_robots_txt: false\n"
    "allowed_domains: [example.com, example.org]\n"
    "exclude_patterns:\n"
    "  - '\\.pdf$'\n"
    "  - /private/\n"
    "strip_query_params: utm_*\n"
    "revisit_after: 1d\n"
    "db_path: crawl.db\n"
    "metrics_path: m.log\n"
    "trace_path: trace.jsonl\n");
  CHECK(c.seeds == Strings{"http://example.com/"});
  CHECK(c.profile == "domains");
  CHECK(c.max_depth == 0);
  CHECK(c.max_pages == 20);
  CHECK(c.concurrent_workers == 8);
  CHECK(c.request_timeout_ms == 2000);
  CHECK(c.politeness_delay_ms == 250);
  CHECK(c.retry_delay_ms == 1500);
  CHECK(c.max_body_bytes == 524288);
  CHECK(c.max_redirects == 0);
  CHECK(c.user_agent == "testbot/1.0 (+http://example.com/bot)");
  CHECK_FALSE(c.respect_robots_txt);
  CHECK(c.allowed_domains == Strings{"example.com", "example.org"});
  CHECK(c.exclude_patterns == Strings{"\\.pdf$", "/private/"});
  // A scalar where a list is expected is a one-element list.
  CHECK(c.strip_query_params == Strings{"utm_*"});
  CHECK(c.revisit_after_ms == 86400000);
  CHECK(c.db_path == "crawl.db");
  CHECK(c.metrics_path == "m.log");
  CHECK(c.trace_path == "trace.jsonl");
  // Keys the file does not mention keep their defaults.
  CHECK(c.max_crawls_per_node == 3);
  CHECK(c.retry_attempts == 3);
}

TEST_CASE("yaml: seed_url and seeds fill one list, a file list replaces what was there", "[config][yaml]") {
  CrawlConfig c;
  c.seeds = {"http://before.example/"};
  c.exclude_patterns = {"old"};
  apply_yaml(
    "seed_url: http://a.example/\n"
    "seeds: [http://b.example/, http://c.example/]\n"
    "exclude_patterns: [new]\n",
    "test.yaml", c);
  CHECK(c.seeds == Strings{"http://a.example/", "http://b.example/", "http://c.example/"});
  CHECK(c.exclude_patterns == Strings{"new"});

  // An explicitly empty list clears.
  c.allowed_domains = {"x.example"};
  apply_yaml("allowed_domains: []\n", "test.yaml", c);
  CHECK(c.allowed_domains.empty());
  c.allowed_domains = {"x.example"};
  apply_yaml("allowed_domains:\n", "test.yaml", c);
  CHECK(c.allowed_domains.empty());
}

TEST_CASE("yaml: unknown key names the key and line and suggests the nearest", "[config][yaml]") {
  CHECK(yaml_error("max_depth: 3\nmax_dept: 4\n") ==
        "test.yaml, line 2: unknown key 'max_dept' (did you mean 'max_depth'?)");
  CHECK(yaml_error("seed: http://a.example/\n") ==
        "test.yaml, line 1: unknown key 'seed' (did you mean 'seeds'?)");
  CHECK(yaml_error("\n\n# comment\nuser_agnet: x\n") ==
        "test.yaml, line 4: unknown key 'user_agnet' (did you mean 'user_agent'?)");
  // Nothing close: no suggestion rather than a misleading one.
  CHECK(yaml_error("max_depth: 3\nwhatever_this_is: 1\n") ==
        "test.yaml, line 2: unknown key 'whatever_this_is'");
}

TEST_CASE("yaml: out-of-range values name the key and line", "[config][yaml]") {
  CHECK(yaml_error("max_pages: 10\n\nmax_depth: -1\n") ==
        "test.yaml, line 3: key 'max_depth': must be between 0 and 1000, got -1");
  CHECK(yaml_error("concurrent_workers: 257\n") ==
        "test.yaml, line 1: key 'concurrent_workers': must be between 0 and 256, got 257");
  CHECK(yaml_error("max_pages: 0\n") ==
        "test.yaml, line 1: key 'max_pages': must be between 1 and 1000000000, got 0");
  CHECK(yaml_error("max_body_bytes: 2GiB\n") ==
        "test.yaml, line 1: key 'max_body_bytes': must be between 1 and 1073741824, got 2GiB (2147483648 bytes)");
  CHECK(yaml_error("request_timeout_ms: 0\n") ==
        "test.yaml, line 1: key 'request_timeout_ms': must be between 1 and 3600000, got 0 (0 ms)");
  CHECK(yaml_error("max_redirects: 51\n") ==
        "test.yaml, line 1: key 'max_redirects': must be between 0 and 50, got 51");
  CHECK(yaml_error("max_pages: 99999999999999999999\n") ==
        "test.yaml, line 1: key 'max_pages': must be between 1 and 1000000000, got 99999999999999999999");
}

TEST_CASE("yaml: wrong types name the key and line", "[config][yaml]") {
  CHECK(yaml_error("max_pages: abc\n") ==
        "test.yaml, line 1: key 'max_pages': expected an integer, got 'abc'");
  CHECK(yaml_error("max_pages: 1.5\n") ==
        "test.yaml, line 1: key 'max_pages': expected an integer, got '1.5'");
  CHECK(yaml_error("max_depth: 2\nmax_pages: [1, 2]\n") ==
        "test.yaml, line 2: key 'max_pages': expected an integer");
  CHECK(yaml_error("max_pages:\n") == "test.yaml, line 1: key 'max_pages': expected an integer");
  CHECK(yaml_error("respect_robots_txt: maybe\n") ==
        "test.yaml, line 1: key 'respect_robots_txt': expected true or false, got 'maybe'");
  CHECK(yaml_error("user_agent: {name: bot}\n") ==
        "test.yaml, line 1: key 'user_agent': expected a string");
  CHECK(yaml_error("seeds: {a: b}\n") ==
        "test.yaml, line 1: key 'seeds': expected a list of strings");
  CHECK(yaml_error("seeds:\n  - [http://a.example/]\n") ==
        "test.yaml, line 1: key 'seeds': expected a list of strings");
  CHECK(yaml_error("profile: web\n") ==
        "test.yaml, line 1: key 'profile': must be one of site, domains, got 'web'");
  CHECK(yaml_error("politeness_delay_ms: soon\n") ==
        "test.yaml, line 1: key 'politeness_delay_ms': expected a duration, got 'soon'");
  CHECK(yaml_error("max_body_bytes: lots\n") ==
        "test.yaml, line 1: key 'max_body_bytes': expected a size, got 'lots'");
  // A plain scalar continued on an indented line is one value: "3 bad".
  CHECK(yaml_error("max_depth: 3\n  bad\n") ==
        "test.yaml, line 1: key 'max_depth': expected an integer, got '3 bad'");
}

TEST_CASE("yaml: the top level must be a mapping", "[config][yaml]") {
  CHECK(yaml_error("- max_depth: 3\n- max_pages: 4\n") ==
        "test.yaml: expected a mapping of config keys at the top level");
  CHECK(yaml_error("just some words\n") ==
        "test.yaml: expected a mapping of config keys at the top level");
  CHECK(yaml_error("42\n") == "test.yaml: expected a mapping of config keys at the top level");
}

TEST_CASE("yaml: an empty file keeps every default", "[config][yaml]") {
  for (const char* text : {"", "\n\n", "   \n", "# nothing configured yet\n", "---\n"}) {
    INFO("yaml [" << text << "]");
    CrawlConfig c;
    c.max_pages = 77;  // what earlier layers said survives too
    apply_yaml(text, "test.yaml", c);
    CHECK(c.max_pages == 77);
    CHECK(c.max_depth == 5);
    CHECK(c.seeds.empty());
  }
}

TEST_CASE("yaml: syntax errors name the line", "[config][yaml]") {
  using Catch::Matchers::StartsWith;
  // A tab used for indentation.
  CHECK_THAT(yaml_error("max_depth: 3\n\tmax_pages: 4\n"),
             StartsWith("test.yaml, line 2: invalid YAML: "));
  CHECK_THAT(yaml_error("\tmax_depth: 3\n"), StartsWith("test.yaml, line 1: invalid YAML: "));
  // Garbage tokens.
  CHECK_THAT(yaml_error("max_depth: 3\n@@@ !!! :: ]]\n"),
             StartsWith("test.yaml, line 2: invalid YAML: "));
  // An unclosed flow sequence is reported where the file ends.
  CHECK_THAT(yaml_error("max_depth: 3\nmax_pages: [1, 2\n"),
             StartsWith("test.yaml, line 3: invalid YAML: "));
  CHECK_THAT(yaml_error("max_depth: 3\n max_pages: 4\n"),
             StartsWith("test.yaml, line 2: invalid YAML: "));
  // A tab as the separator after the colon is legal YAML, though.
  CHECK(from_yaml("max_depth:\t3\n").max_depth == 3);
}

TEST_CASE("yaml file: errors carry the file's path, a missing file is an error", "[config][yaml]") {
  TempFile file("max_depth: 2\nconcurrent_workers: 257\n");
  CrawlConfig c;
  CHECK(error_of([&] { apply_yaml_file(file.path(), c); }) ==
        "config file '" + file.path() +
          "', line 2: key 'concurrent_workers': must be between 0 and 256, got 257");

  TempFile good("max_depth: 2\n");
  CrawlConfig g;
  apply_yaml_file(good.path(), g);
  CHECK(g.max_depth == 2);

  const std::string missing = file.path() + ".missing";
  CHECK(error_of([&] { apply_yaml_file(missing, c); }) ==
        "config file '" + missing + "': cannot be read (No such file or directory)");
}

TEST_CASE("yaml file: every configuration under configs/ loads and validates", "[config][yaml]") {
  // The files the package ships as examples (the Raspberry Pi's among them).
  const fs::path data = fs::path{ACTORCRAWL_TEST_DATA}.lexically_normal();
  const fs::path root = (data.has_filename() ? data : data.parent_path()).parent_path().parent_path();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(root / "configs")) {
    if (entry.path().extension() != ".yaml")
      continue;
    ++files;
    INFO(entry.path().filename().string());
    CrawlConfig loaded;
    REQUIRE_NOTHROW(apply_yaml_file(entry.path().string(), loaded));
    CHECK_NOTHROW(validate(loaded, false));
  }
  CHECK(files >= 4);
}

TEST_CASE("yaml file: configs/default.yaml is every key at its default", "[config][yaml]") {
  // Resolved lexically: tests/data need not exist for its ../.. to be the
  // source tree, but the kernel would refuse ".." through a missing directory.
  const fs::path data = fs::path{ACTORCRAWL_TEST_DATA}.lexically_normal();
  const fs::path root = (data.has_filename() ? data : data.parent_path()).parent_path().parent_path();
  const fs::path path = root / "configs" / "default.yaml";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  // Regenerate with: build/actorcrawl --default-config > configs/default.yaml
  CHECK(text.str() == default_config_yaml());

  CrawlConfig loaded;
  loaded.seeds = {"http://stale.example/"};  // the file's empty lists must apply
  REQUIRE_NOTHROW(apply_yaml_file(path.string(), loaded));
  CHECK_NOTHROW(validate(loaded, false));
  const CrawlConfig defaults;
  const YAML::Node doc = YAML::LoadFile(path.string());
  for (const auto& key : config_keys()) {
    INFO(key.name);
    CHECK(doc[key.name].IsDefined());
    std::visit([&](auto member) { CHECK(loaded.*member == defaults.*member); }, key.member);
  }
}

// ---------------------------------------------------------------------------
// Environment

TEST_CASE("env: ACTORCRAWL_<KEY> for every kind, lists comma-separated", "[config][env]") {
  FakeEnv env;
  env.vars = {
    {"ACTORCRAWL_MAX_PAGES", "7"},
    {"ACTORCRAWL_POLITENESS_DELAY_MS", "2s"},
    {"ACTORCRAWL_MAX_BODY_BYTES", "64KiB"},
    {"ACTORCRAWL_RESPECT_ROBOTS_TXT", "no"},
    {"ACTORCRAWL_USER_AGENT", "envbot/2"},
    {"ACTORCRAWL_ALLOWED_DOMAINS", " a.example, ,b.example ,"},
    {"ACTORCRAWL_REVISIT_AFTER", "12h"},
    // Lowercase or partial names are not ours.
    {"actorcrawl_max_depth", "9"},
    {"MAX_DEPTH", "9"},
  };
  CrawlConfig c;
  c.allowed_domains = {"from-file.example"};
  apply_environment(c, env.lookup());
  CHECK(c.max_pages == 7);
  CHECK(c.politeness_delay_ms == 2000);
  CHECK(c.max_body_bytes == 65536);
  CHECK_FALSE(c.respect_robots_txt);
  CHECK(c.user_agent == "envbot/2");
  // Items are trimmed, empty ones dropped, and the list replaces the file's.
  CHECK(c.allowed_domains == Strings{"a.example", "b.example"});
  CHECK(c.revisit_after_ms == 43200000);
  CHECK(c.max_depth == 5);
}

TEST_CASE("env: the historical CRAWL_DELAY_MS and SEED", "[config][env]") {
  FakeEnv env;
  env.vars = {{"CRAWL_DELAY_MS", "300"}, {"SEED", "http://seed.example/"}};
  CrawlConfig c;
  c.seeds = {"http://from-file.example/"};
  apply_environment(c, env.lookup());
  CHECK(c.politeness_delay_ms == 300);
  CHECK(c.seeds == Strings{"http://seed.example/"});

  // An empty SEED is as good as none: it does not wipe the file's seeds.
  FakeEnv empty;
  empty.vars = {{"SEED", ""}};
  CrawlConfig d;
  d.seeds = {"http://from-file.example/"};
  apply_environment(d, empty.lookup());
  CHECK(d.seeds == Strings{"http://from-file.example/"});
}

TEST_CASE("env: bad values name the variable", "[config][env]") {
  auto env_error = [](std::map<std::string, std::string> vars) {
    FakeEnv env;
    env.vars = std::move(vars);
    CrawlConfig c;
    return error_of([&] { apply_environment(c, env.lookup()); });
  };
  CHECK(env_error({{"ACTORCRAWL_MAX_DEPTH", "-2"}}) ==
        "environment variable ACTORCRAWL_MAX_DEPTH: must be between 0 and 1000, got -2");
  CHECK(env_error({{"ACTORCRAWL_CONCURRENT_WORKERS", "many"}}) ==
        "environment variable ACTORCRAWL_CONCURRENT_WORKERS: expected an integer, got 'many'");
  CHECK(env_error({{"CRAWL_DELAY_MS", "soon"}}) ==
        "environment variable CRAWL_DELAY_MS: expected a duration, got 'soon'");
  CHECK(env_error({{"ACTORCRAWL_PROFILE", "web"}}) ==
        "environment variable ACTORCRAWL_PROFILE: must be one of site, domains, got 'web'");
  CHECK(env_error({}) == "(no error)");
}

// ---------------------------------------------------------------------------
// Command line

TEST_CASE("cli: --flag value and --flag=value, positional arguments are returned", "[config][cli]") {
  CrawlConfig c;
  const auto rest = apply_command_line(
    {"crawl", "--max-pages", "10", "--max-depth=2", "--user-agent", "clibot", "extra",
     "--profile=domains", "--max-body-bytes", "2MiB", "-v"},
    c);
  CHECK(rest == Strings{"crawl", "extra", "-v"});
  CHECK(c.max_pages == 10);
  CHECK(c.max_depth == 2);
  CHECK(c.user_agent == "clibot");
  CHECK(c.profile == "domains");
  CHECK(c.max_body_bytes == 2097152);
}

TEST_CASE("cli: duration flags with and without -ms take units", "[config][cli]") {
  CrawlConfig c;
  apply_command_line({"--politeness-delay", "1s", "--request-timeout=250ms", "--retry-delay-ms",
                      "300", "--revisit-after", "2d", "--progress-interval", "1m"},
                     c);
  CHECK(c.politeness_delay_ms == 1000);
  CHECK(c.request_timeout_ms == 250);
  CHECK(c.retry_delay_ms == 300);
  CHECK(c.revisit_after_ms == 172800000);
  CHECK(c.progress_interval_ms == 60000);
  CHECK(c.storage_commit_interval_ms == 1000);  // the default: a second
  apply_command_line({"--storage-commit-interval", "5s"}, c);
  CHECK(c.storage_commit_interval_ms == 5000);
  CHECK(error_of([&] { apply_command_line({"--storage-commit-interval", "5ms"}, c); }).find(
          "--storage-commit-interval': must be between 10 and 3600000") != std::string::npos);
  // revisit_after has no -ms suffix to drop, so there is no shorter flag.
  CHECK(error_of([&] { apply_command_line({"--revisit", "1d"}, c); }) ==
        "unknown option '--revisit' (see actorcrawl --help)");
}

TEST_CASE("cli: aliases --seed, --workers, --db, --metrics, --trace", "[config][cli]") {
  CrawlConfig c;
  apply_command_line({"--seed", "http://a.example/", "--workers", "4", "--db", "x.db", "--metrics",
                      "x.log", "--trace=t.jsonl"},
                     c);
  CHECK(c.seeds == Strings{"http://a.example/"});
  CHECK(c.concurrent_workers == 4);
  CHECK(c.db_path == "x.db");
  CHECK(c.metrics_path == "x.log");
  CHECK(c.trace_path == "t.jsonl");
  // The long names work as well.
  apply_command_line({"--concurrent-workers", "6", "--db-path", "y.db"}, c);
  CHECK(c.concurrent_workers == 6);
  CHECK(c.db_path == "y.db");
}

TEST_CASE("cli: boolean flags, --no-<flag> and explicit values", "[config][cli]") {
  CrawlConfig c;
  apply_command_line({"--no-respect-robots-txt"}, c);
  CHECK_FALSE(c.respect_robots_txt);
  apply_command_line({"--respect-robots-txt"}, c);
  CHECK(c.respect_robots_txt);
  apply_command_line({"--respect-robots-txt=off"}, c);
  CHECK_FALSE(c.respect_robots_txt);
  apply_command_line({"--respect-robots-txt=yes"}, c);
  CHECK(c.respect_robots_txt);
  // A boolean flag never consumes the next argument: it is positional.
  c.respect_robots_txt = false;
  CHECK(apply_command_line({"--respect-robots-txt", "false"}, c) == Strings{"false"});
  CHECK(c.respect_robots_txt);
  // --no- only negates booleans.
  CHECK(error_of([&] { apply_command_line({"--no-max-pages"}, c); }) ==
        "unknown option '--no-max-pages' (see actorcrawl --help)");
}

TEST_CASE("cli: repeated list flags append, the first replaces the file's list", "[config][cli]") {
  CrawlConfig c;
  c.exclude_patterns = {"from-file"};
  c.seeds = {"http://file.example/"};
  apply_command_line({"--exclude-patterns", "a", "--seed", "http://one.example/",
                      "--exclude-patterns=b", "--seed", "http://two.example/"},
                     c);
  CHECK(c.exclude_patterns == Strings{"a", "b"});
  CHECK(c.seeds == Strings{"http://one.example/", "http://two.example/"});

  // --seed, --seeds and --seed-url all name the one seed list, so mixing
  // them still appends after the first.
  CrawlConfig d;
  d.seeds = {"http://file.example/"};
  apply_command_line({"--seed-url", "http://a.example/", "--seed", "http://b.example/", "--seeds",
                      "http://c.example/"},
                     d);
  CHECK(d.seeds == Strings{"http://a.example/", "http://b.example/", "http://c.example/"});

  // Each call starts afresh: a later call replaces again.
  apply_command_line({"--seed", "http://d.example/"}, d);
  CHECK(d.seeds == Strings{"http://d.example/"});
}

TEST_CASE("cli: unknown flags, missing and bad values", "[config][cli]") {
  CrawlConfig c;
  CHECK(error_of([&] { apply_command_line({"--max-page", "3"}, c); }) ==
        "unknown option '--max-page' (see actorcrawl --help)");
  CHECK(error_of([&] { apply_command_line({"--bogus=1"}, c); }) ==
        "unknown option '--bogus' (see actorcrawl --help)");
  // Flags use dashes, not the YAML key's underscores.
  CHECK(error_of([&] { apply_command_line({"--max_pages", "3"}, c); }) ==
        "unknown option '--max_pages' (see actorcrawl --help)");
  CHECK(error_of([&] { apply_command_line({"--max-pages"}, c); }) ==
        "option '--max-pages' needs a value");
  CHECK(error_of([&] { apply_command_line({"--workers", "257"}, c); }) ==
        "option '--workers': must be between 0 and 256, got 257");
  CHECK(error_of([&] { apply_command_line({"--max-depth=-1"}, c); }) ==
        "option '--max-depth': must be between 0 and 1000, got -1");
  CHECK(error_of([&] { apply_command_line({"--politeness-delay", "fast"}, c); }) ==
        "option '--politeness-delay': expected a duration, got 'fast'");
  CHECK(error_of([&] { apply_command_line({"--profile", "web"}, c); }) ==
        "option '--profile': must be one of site, domains, got 'web'");
}

TEST_CASE("cli: --config is found by config_path_from_args and skipped by the parser", "[config][cli]") {
  CHECK(config_path_from_args({"crawl", "--config", "a.yaml"}) == "a.yaml");
  CHECK(config_path_from_args({"crawl", "-c", "b.yaml", "--max-pages", "3"}) == "b.yaml");
  CHECK(config_path_from_args({"--config=c.yaml"}) == "c.yaml");
  CHECK(config_path_from_args({"crawl", "--max-pages", "3"}) == "");
  CHECK(config_path_from_args({"crawl", "--config"}) == "");

  CrawlConfig c;
  CHECK(apply_command_line({"crawl", "--config", "a.yaml", "-c", "b.yaml", "--config=c.yaml",
                            "--max-pages", "3"},
                           c) == Strings{"crawl"});
  CHECK(c.max_pages == 3);
}

TEST_CASE("precedence: defaults < YAML < environment < command line", "[config]") {
  CrawlConfig c;
  apply_yaml(
    "max_pages: 50\n"
    "max_depth: 2\n"
    "politeness_delay_ms: 2s\n"
    "user_agent: filebot\n"
    "seeds: [http://file.example/]\n",
    "test.yaml", c);
  CHECK(c.max_pages == 50);

  FakeEnv env;
  env.vars = {{"ACTORCRAWL_MAX_PAGES", "60"}, {"CRAWL_DELAY_MS", "500"},
              {"ACTORCRAWL_USER_AGENT", "envbot"}};
  apply_environment(c, env.lookup());
  CHECK(c.max_pages == 60);
  CHECK(c.politeness_delay_ms == 500);

  apply_command_line({"--max-pages", "70", "--user-agent", "clibot"}, c);
  CHECK(c.max_pages == 70);             // CLI over env over YAML
  CHECK(c.user_agent == "clibot");      // CLI over env
  CHECK(c.politeness_delay_ms == 500);  // env over YAML, no CLI
  CHECK(c.max_depth == 2);              // YAML over default only
  CHECK(c.seeds == Strings{"http://file.example/"});
  CHECK(c.concurrent_workers == 3);     // untouched default
}

// ---------------------------------------------------------------------------
// validate and help

TEST_CASE("validate: the adaptive revisit interval needs its base and a floor below its ceiling", "[config]") {
  CrawlConfig c;
  c.revisit_after_ms = 24 * 3600 * 1000;
  c.adaptive_revisit = true;
  CHECK_NOTHROW(validate(c, false));
  c.revisit_min_ms = 7 * 24 * 3600 * 1000LL;
  c.revisit_max_ms = 24 * 3600 * 1000;
  CHECK(error_of([&] { validate(c, false); }) ==
        "revisit_min (604800000 ms) must not exceed revisit_max (86400000 ms)");
  c.revisit_min_ms = 3600 * 1000;
  c.revisit_after_ms = 0;
  CHECK(error_of([&] { validate(c, false); }) == "adaptive_revisit needs revisit_after: the interval it starts from");
  c.adaptive_revisit = false;
  CHECK_NOTHROW(validate(c, false));
  CHECK(error_of([&] { apply_yaml("revisit_check_interval: soon\n", "test.yaml", c); }) != "");
}

TEST_CASE("validate: seeds are required when asked for and must be crawlable", "[config]") {
  CrawlConfig c;
  CHECK(error_of([&] { validate(c, true); }) ==
        "no seed: give --seed URL, seed_url in the config file, or SEED=URL");
  CHECK_NOTHROW(validate(c, false));

  c.seeds = {"http://ok.example/", "ftp://files.example/"};
  CHECK(error_of([&] { validate(c, true); }) ==
        "seed 'ftp://files.example/' is not a crawlable URL (unsupported_scheme)");
  c.seeds = {"http://user@/nohost"};
  CHECK(error_of([&] { validate(c, false); }) ==
        "seed 'http://user@/nohost' is not a crawlable URL (missing_host)");
  c.seeds = {"   "};
  CHECK(error_of([&] { validate(c, false); }) == "seed '   ' is not a crawlable URL (empty)");

  c.seeds = {"http://ok.example/", "https://also.example/path?q=1"};
  CHECK_NOTHROW(validate(c, true));
  c.db_path = "";
  CHECK(error_of([&] { validate(c, true); }) == "db_path must not be empty");
}

TEST_CASE("validate: sitemap_urls must be crawlable, and turn sitemaps on unless they are off", "[config]") {
  CrawlConfig c;
  c.profile = "domains";
  CHECK_FALSE(c.sitemaps_enabled());
  c.sitemap_urls = {"https://a.example/maps/s.xml"};
  CHECK(c.sitemaps_enabled());
  CHECK_NOTHROW(validate(c, false));
  c.sitemap_urls = {"https://a.example/s.xml", "gopher://a.example/s.xml"};
  CHECK(error_of([&] { validate(c, false); }) ==
        "sitemap_urls: 'gopher://a.example/s.xml' is not a crawlable URL (unsupported_scheme)");
  c.sitemap_urls = {"https://a.example/s.xml"};
  c.sitemaps = false;
  c.given["sitemaps"] = "command line";
  CHECK_FALSE(c.sitemaps_enabled());
  CHECK(error_of([&] { validate(c, false); }) ==
        "sitemap_urls names sitemaps to read, and sitemaps is false (command line)");
}

TEST_CASE("options_help lists every key with its default", "[config]") {
  const std::string help = options_help();
  for (const auto& key : config_keys()) {
    INFO("key " << key.name);
    CHECK(help.find(std::string{"["} + key.name + ", default ") != std::string::npos);
    CHECK(help.find(key.help) != std::string::npos);
  }
  // Defaults are rendered per kind.
  CHECK(help.find("[max_depth, default 5]") != std::string::npos);
  CHECK(help.find("[max_body_bytes, default 1MiB]") != std::string::npos);
  CHECK(help.find("[politeness_delay_ms, default 1s]") != std::string::npos);
  CHECK(help.find("[robots_cache_ttl, default 24h]") != std::string::npos);
  CHECK(help.find("[revisit_after, default 0ms]") != std::string::npos);
  CHECK(help.find("[respect_robots_txt, default true]") != std::string::npos);
  CHECK(help.find("[user_agent, default \"actorcrawl/0.1 (polite web crawler)\"]") !=
        std::string::npos);
  CHECK(help.find("[trace_path, default (none)]") != std::string::npos);
  CHECK(help.find("[seeds, default none (the bundled demo web)]") != std::string::npos);
  CHECK(help.find("[exclude_patterns, default none]") != std::string::npos);
  CHECK(help.find("[processors, default [html_links]]") != std::string::npos);
  // Flags, including the unit-taking duration form and the aliases.
  CHECK(help.find("  --politeness-delay, --politeness-delay-ms\n") != std::string::npos);
  CHECK(help.find("  --seed, --seeds\n") != std::string::npos);
  CHECK(help.find("  --seed-url\n") != std::string::npos);
  CHECK(help.find("  --workers, --concurrent-workers\n") != std::string::npos);
  CHECK(help.find("  --db, --db-path\n") != std::string::npos);
  CHECK(help.find("  --revisit-after\n") != std::string::npos);
}

TEST_CASE("list flags of names split on commas, seeds and patterns do not", "[config][cli]") {
  actorcrawl::CrawlConfig c;
  actorcrawl::apply_command_line({"--allowed-domains", "127.0.0.1,127.0.0.2, 127.0.0.3", "--allowed-domains", "a.test",
                                  "--seed", "http://a.test/?x=1,2", "--exclude-patterns", "a{1,3}",
                                  "--processors", "html_links,save_pages", "--strip-query-params", "utm_*,sid"},
                                 c);
  CHECK(c.allowed_domains == std::vector<std::string>{"127.0.0.1", "127.0.0.2", "127.0.0.3", "a.test"});
  CHECK(c.seeds == std::vector<std::string>{"http://a.test/?x=1,2"});
  CHECK(c.exclude_patterns == std::vector<std::string>{"a{1,3}"});
  CHECK(c.processors == std::vector<std::string>{"html_links", "save_pages"});
  CHECK(c.strip_query_params == std::vector<std::string>{"utm_*", "sid"});

  actorcrawl::CrawlConfig y;
  actorcrawl::apply_yaml("allowed_domains: a.test, b.test\nseeds: http://a.test/?q=1,2\n", "test", y);
  CHECK(y.allowed_domains == std::vector<std::string>{"a.test", "b.test"});
  CHECK(y.seeds == std::vector<std::string>{"http://a.test/?q=1,2"});
}

TEST_CASE("node address: only loopback addresses count as reachable from this machine alone", "[config]") {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "127.255.255.255", "localhost", "::1", "0:0:0:0:0:0:0:1"}) {
    INFO(host);
    CHECK(NodeAddress{host, 7788}.loopback_only());
  }
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.5", "128.0.0.1", "::ffff:10.0.0.1",
                           "coordinator.example", "", "127.0.0.1 ", "127.1", "fe80::1"}) {
    INFO("'" << host << "'");
    CHECK_FALSE(NodeAddress{host, 7788}.loopback_only());
  }
  // As --listen spells them.
  CHECK(parse_node_address("7788", "listen").loopback_only());  // no host: 127.0.0.1
  CHECK(parse_node_address("[::1]:7788", "listen").loopback_only());
  CHECK_FALSE(parse_node_address("0.0.0.0:7788", "listen").loopback_only());
}

TEST_CASE("yaml: a key given twice is an error naming both lines", "[config][yaml]") {
  CrawlConfig c;
  CHECK(error_of([&] { apply_yaml("max_pages: 5\nmax_depth: 2\nmax_pages: 9\n", "test.yaml", c); }) ==
        "test.yaml, line 3: key 'max_pages' is given twice (first on line 1)");
  // seed_url and seeds are two keys filling one list, not a repeat.
  CrawlConfig s;
  apply_yaml("seed_url: http://a.test/\nseeds: [http://b.test/]\n", "test.yaml", s);
  CHECK(s.seeds == std::vector<std::string>{"http://a.test/", "http://b.test/"});
}

TEST_CASE("max_links_per_page: a documented default and bounds", "[config]") {
  CHECK(CrawlConfig{}.max_links_per_page == 1000);
  CrawlConfig c;
  CHECK(error_of([&] { apply_yaml("max_links_per_page: 0\n", "test.yaml", c); }).find("max_links_per_page") !=
        std::string::npos);
  apply_yaml("max_links_per_page: 50\n", "test.yaml", c);
  CHECK(c.max_links_per_page == 50);
}

TEST_CASE("validate: text that is not UTF-8 is refused with its key, byte and offset", "[config]") {
  CrawlConfig c;
  c.seeds = {"http://a.test/\xff"};
  CHECK(error_of([&] { validate(c, true); }) ==
        "key 'seeds': 'http://a.test/\\xFF' is not valid UTF-8 (byte 0xFF at offset 14)");
  c.seeds = {"http://a.test/"};
  c.user_agent = "bot\xc3";
  CHECK(error_of([&] { validate(c, true); }).find("key 'user_agent'") == 0);
  c.user_agent = "bot/1 (caf\xc3\xa9)";  // valid UTF-8 is fine
  CHECK(error_of([&] { validate(c, true); }) == "(no error)");
}

TEST_CASE("warc keys: defaults, sizes, flags and a prefix that names files safely", "[config][warc]") {
  const CrawlConfig defaults;
  CHECK(defaults.warc_dir == "warc");
  CHECK(defaults.warc_prefix == "actorcrawl");
  CHECK(defaults.warc_max_bytes == 1073741824);
  CHECK(key_named("warc_max_bytes")->kind == ValueKind::bytes);

  CrawlConfig c;
  apply_yaml("processors: [html_links, warc]\nwarc_dir: out/w\nwarc_max_bytes: 100MiB\nwarc_prefix: site-a_1.x\n",
             "test", c);
  CHECK(c.processors == Strings{"html_links", "warc"});
  CHECK(c.warc_dir == "out/w");
  CHECK(c.warc_max_bytes == 100 * 1048576);
  c.seeds = {"http://a.test/"};
  CHECK_NOTHROW(validate(c, true));
  apply_command_line({"--warc-max-bytes", "64KiB", "--warc-dir=x"}, c);
  CHECK(c.warc_max_bytes == 65536);
  CHECK(c.warc_dir == "x");
  CHECK_THROWS_WITH(apply_command_line({"--warc-max-bytes", "1000"}, c),
                    Catch::Contains("option '--warc-max-bytes': must be between 65536"));
  for (const std::string bad : {"", "a/b", "../x", ".hidden", "a b"}) {
    INFO(bad);
    c.warc_prefix = bad;
    CHECK_THROWS_WITH(validate(c, true), Catch::StartsWith("warc_prefix: '" + bad + "' is not a file name prefix"));
  }
  c.warc_prefix = "ok";
  c.warc_dir = "";
  CHECK_THROWS_WITH(validate(c, true), "warc_dir must not be empty");
}

TEST_CASE("one rule for lists: the environment splits as flags and YAML do", "[config][env]") {
  FakeEnv env;
  // Names never hold a comma: split. Seeds, patterns and resolve entries
  // may: one item per line.
  env.vars = {{"ACTORCRAWL_ALLOWED_DOMAINS", "a.test,b.test"},
              {"ACTORCRAWL_SEEDS", "http://a.test/?x=1,2\n http://b.test/ \n\n"},
              {"ACTORCRAWL_EXCLUDE_PATTERNS", "a{1,3}"},
              {"ACTORCRAWL_RESOLVE", "a.test:80:127.0.0.1,127.0.0.2"}};
  CrawlConfig c;
  apply_environment(c, env.lookup());
  CHECK(c.allowed_domains == Strings{"a.test", "b.test"});
  CHECK(c.seeds == Strings{"http://a.test/?x=1,2", "http://b.test/"});
  CHECK(c.exclude_patterns == Strings{"a{1,3}"});
  CHECK(c.resolve == Strings{"a.test:80:127.0.0.1,127.0.0.2"});
  CHECK(c.given.at("seeds") == "environment variable ACTORCRAWL_SEEDS");

  CrawlConfig f;
  apply_command_line({"--resolve", "a.test:80:127.0.0.1,127.0.0.2"}, f);
  CHECK(f.resolve == c.resolve);
  CrawlConfig y;
  apply_yaml("resolve: a.test:80:127.0.0.1,127.0.0.2\n", "test.yaml", y);
  CHECK(y.resolve == c.resolve);
}

TEST_CASE("validate: resolve entries curl would misread are refused", "[config]") {
  CrawlConfig c;
  c.seeds = {"http://a.test/"};
  for (const std::string ok : {"a.test:80:127.0.0.1", "+a.test:443:127.0.0.1,[::1]", "a.test:8080:[::1]"}) {
    c.resolve = {ok};
    CHECK(error_of([&] { validate(c, true); }) == "(no error)");
  }
  const std::string rule =
    " (an entry is HOST:PORT:ADDRESS as curl --resolve takes it, e.g. example.com:443:127.0.0.1; addresses of one "
    "name are comma-separated, [IPv6] in brackets; each name its own entry)";
  c.resolve = {"a,b"};
  CHECK(error_of([&] { validate(c, true); }) == "resolve: 'a,b' has no HOST:PORT: before the address" + rule);
  c.resolve = {"a.test:80"};
  CHECK(error_of([&] { validate(c, true); }) == "resolve: 'a.test:80' has no address" + rule);
  c.resolve = {"a.test:99999:127.0.0.1"};
  CHECK(error_of([&] { validate(c, true); }) == "resolve: 'a.test:99999:127.0.0.1' has no port from 1 to 65535" + rule);
  c.resolve = {"a.test:80:127.0.0.1,b.test:80:127.0.0.2"};
  CHECK(error_of([&] { validate(c, true); }) ==
        "resolve: 'a.test:80:127.0.0.1,b.test:80:127.0.0.2' names 'b.test:80:127.0.0.2', which is not an IP address" +
          rule);
  c.resolve = {"a.test:80:::1"};
  CHECK(error_of([&] { validate(c, true); }) ==
        "resolve: 'a.test:80:::1' names '::1', which is not an IP address" + rule);
}

TEST_CASE("yaml file: a directory is not an empty config", "[config][yaml]") {
  CrawlConfig c;
  CHECK(error_of([&] { apply_yaml_file(".", c); }) == "config file '.': is a directory, not a YAML file");
}

TEST_CASE("numbers out of range are named as written", "[config]") {
  CHECK(yaml_error("max_pages: 18446744073709551615\n") ==
        "test.yaml, line 1: key 'max_pages': must be between 1 and 1000000000, got 18446744073709551615");
  CHECK(yaml_error("max_depth: -99999999999999999999\n") ==
        "test.yaml, line 1: key 'max_depth': must be between 0 and 1000, got -99999999999999999999");
  CrawlConfig c;
  CHECK(error_of([&] { apply_command_line({"--max-pages", " 18446744073709551616 "}, c); }) ==
        "option '--max-pages': must be between 1 and 1000000000, got 18446744073709551616");
}

TEST_CASE("scope: a key with three values, domain by default", "[config]") {
  CHECK(CrawlConfig{}.scope == "domain");
  CHECK(from_yaml("scope: any\n").scope == "any");
  CHECK(from_yaml("scope: host\n").scope == "host");
  CHECK(yaml_error("scope: everything\n") ==
        "test.yaml, line 1: key 'scope': must be one of domain, host, any, got 'everything'");
  CrawlConfig c;
  apply_command_line({"--scope", "any"}, c);
  CHECK(c.scope == "any");
}

TEST_CASE("profile keys: a key the profile ignores is an error naming it, its source and its profile", "[config]") {
  CHECK(profile_using("max_crawls_per_node") == CrawlProfile::domains);
  CHECK(profile_using("excluded_domains") == CrawlProfile::domains);
  CHECK(profile_using("scope") == CrawlProfile::site);
  CHECK(profile_using("allowed_domains") == CrawlProfile::site);
  CHECK_FALSE(profile_using("max_pages"));
  CHECK_FALSE(profile_using("max_links_per_page"));

  // Seed 004's config.json without `profile: domains`.
  CrawlConfig seed004 = from_yaml("seed_url: http://a.test/\nmax_crawls_per_node: 5\nmax_outbound_links: 20\n");
  CHECK(error_of([&] { check_profile_keys(seed004); }) ==
        "test.yaml, line 2: key 'max_crawls_per_node' is used only by the domains profile, and this crawl's profile "
        "is site (set profile: domains, or remove the key)");
  seed004.profile = "domains";
  CHECK(error_of([&] { check_profile_keys(seed004); }) == "(no error)");

  CrawlConfig domains = from_yaml("profile: domains\n");
  apply_command_line({"--scope", "any"}, domains);
  CHECK(error_of([&] { check_profile_keys(domains); }) ==
        "option '--scope': key 'scope' is used only by the site profile, and this crawl's profile is domains (set "
        "profile: site, or remove the key)");

  // A value that changes nothing is no mistake: configs/default.yaml holds
  // every key and must work with either profile.
  std::string text = default_config_yaml();
  text.replace(text.find("profile: \"site\""), 15, "profile: \"domains\"");
  CrawlConfig copy = from_yaml(text);
  CHECK(copy.profile == "domains");
  CHECK(copy.given.count("scope") == 1);
  CHECK(error_of([&] { check_profile_keys(copy); }) == "(no error)");
}

TEST_CASE("extract: rules in YAML become JSON, processors may hold objects", "[config][yaml]") {
  const CrawlConfig c = from_yaml(R"(
extract:
  - name: product
    urls: '/product/'
    fields:
      title: {css: 'h1::text'}
      price: {xpath: '//span[@class="price"]/text()', regex: '[0-9]+[.][0-9]+'}
      tags:  {css: 'ul.tags li::text', all: true}
      sku:   {css: '.sku::text', regex: '5'}
processors:
  - html_links
  - {name: lang, exec: [python3, plugins/lang.py], urls: '', timeout: 5s, instances: 2}
)");
  const auto rules = nlohmann::json::parse(c.extract_rules);
  CHECK(rules[0]["name"] == "product");
  CHECK(rules[0]["fields"]["tags"]["all"] == true);  // a YAML boolean stays one
  CHECK(rules[0]["fields"]["sku"]["regex"] == "5");  // a quoted scalar stays a string
  CHECK(rules[0]["fields"]["price"]["xpath"] == "//span[@class=\"price\"]/text()");
  // The fields in the order written, not sorted: they are the item's keys.
  const std::string& text = c.extract_rules;
  CHECK(text.find("\"title\"") < text.find("\"price\""));
  CHECK(text.find("\"price\"") < text.find("\"tags\""));
  CHECK(text.find("\"tags\"") < text.find("\"sku\""));
  REQUIRE(c.processors.size() == 2);
  CHECK(c.processors[0] == "html_links");
  const auto lang = nlohmann::json::parse(c.processors[1]);
  CHECK(lang["exec"] == nlohmann::json{"python3", "plugins/lang.py"});
  CHECK(lang["instances"] == 2);
  CHECK(lang["timeout"] == "5s");

  // The same from a flag or a variable, as JSON (which is YAML).
  CrawlConfig f;
  apply_command_line({"--extract", R"([{"name": "t", "fields": {"t": {"css": "title"}}}])", "--processors",
                      R"(html_links,save_pages)", "--processors", R"({"name": "x", "exec": ["a,b"]})"},
                     f);
  CHECK(nlohmann::json::parse(f.extract_rules)[0]["name"] == "t");
  CHECK(f.processors == Strings{"html_links", "save_pages", R"({"name":"x","exec":["a,b"]})"});
  CHECK(from_yaml("extract: []\n").extract_rules.empty());
  CHECK(yaml_error("extract: 5\n") == "test.yaml, line 1: key 'extract': expected a list or a mapping");
  CHECK(yaml_error("processors: [html_links, [a]]\n") ==
        "test.yaml, line 1: key 'processors': expected a list of names and mappings");
}

namespace actorcrawl {

TEST_CASE("a configuration nested a million deep is refused before yaml-cpp recurses into it", "[config][yaml]") {
  CHECK(yaml_error("extract: " + std::string(1000000, '[') + std::string(1000000, ']') + "\n") ==
        "test.yaml: a value nests deeper than 64 levels of [ ] and { }");
  // The same through a flag.
  CrawlConfig c;
  CHECK(error_of([&] { apply_command_line({"--extract", std::string(100000, '[')}, c); })
          .find("a value nests deeper than 64 levels of [ ] and { }") != std::string::npos);
  // Rules nested deep but within the bound are the rules' own business.
  CHECK(yaml_error("max_depth: 3\nexclude_patterns: ['[[[[[']\n") == "(no error)");
}

}  // namespace actorcrawl

TEST_CASE("request keys: headers, auth and proxy from a file, flags and the environment", "[config][requests]") {
  CrawlConfig c;
  apply_yaml("headers:\n"
             "  - 'Accept-Language: de'\n"
             "  - {hosts: 'shop$', X-Api-Key: k1}\n"
             "auth:\n"
             "  - {hosts: '^intra$', basic: 'u:p'}\n"
             "proxy: 'socks5h://127.0.0.1:1080'\n",
             "test.yaml", c);
  CHECK(c.request_headers == std::vector<std::string>{"Accept-Language: de", R"({"hosts":"shop$","X-Api-Key":"k1"})"});
  CHECK(c.auth == std::vector<std::string>{R"({"hosts":"^intra$","basic":"u:p"})"});
  CHECK(c.proxy == "socks5h://127.0.0.1:1080");
  CHECK_NOTHROW(validate(c, false));

  // A header line may hold commas: one flag, one line; --header is --headers.
  CrawlConfig f;
  apply_command_line({"--header", "Accept: text/html, */*", "--headers", "X-A: 1", "--proxy-from-environment"}, f);
  CHECK(f.request_headers == std::vector<std::string>{"Accept: text/html, */*", "X-A: 1"});
  CHECK(f.proxy_from_environment);

  CrawlConfig e;
  apply_environment(e, [](const char* name) -> const char* {
    return std::string{name} == "ACTORCRAWL_AUTH" ? "{hosts: a, bearer: t1}\n{hosts: b, bearer: t2}" : nullptr;
  });
  CHECK(e.auth.size() == 2);
}

TEST_CASE("request keys: a wrong proxy is refused without repeating it", "[config][requests]") {
  CrawlConfig c;
  c.proxy = "ftp://user:hunter2@proxy:21";
  auto e = error_of([&] { validate(c, false); });
  CHECK(e == "proxy: not a proxy URL (http://, https://, socks4://, socks5:// or socks5h:// and HOST:PORT)");
  c.proxy = "http://user:hunter2@proxy:3128 x";
  CHECK(error_of([&] { validate(c, false); }).rfind("proxy: not a proxy URL", 0) == 0);
  c.proxy = "http://user:hunter2@proxy:3128";
  CHECK_NOTHROW(validate(c, false));
  c.proxy_from_environment = true;
  CHECK(error_of([&] { validate(c, false); }) ==
        "proxy and proxy_from_environment: give one (a proxy, or those the environment names)");
  c.proxy_from_environment = false;
  c.block_private_networks = true;
  CHECK(error_of([&] { validate(c, false); }).rfind("proxy: block_private_networks cannot hold through a proxy", 0) == 0);
  // A secret that is not UTF-8 is named by its key, not shown.
  CrawlConfig bad;
  bad.auth = {"{\"hosts\": \"a\", \"basic\": \"u:hunter2\xff\"}"};
  e = error_of([&] { validate(bad, false); });
  CHECK(e.rfind("key 'auth': a value is not valid UTF-8", 0) == 0);
  CHECK(e.find("hunter2") == std::string::npos);
}
