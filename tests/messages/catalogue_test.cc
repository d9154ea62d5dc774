// Every message type crosses a process boundary unchanged: serialized with
// CAF's binary serializer and read back, both bare and inside a
// caf::message (which only works for types registered with the system).
#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "messages/catalogue.h"
#include "architecture_doc.h"

using namespace actorcrawl;

namespace {

struct fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  fixture() {
    register_messages(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

// One actor system per test case: CAF's systems must not outlive main().
fixture* current = nullptr;

struct scoped_fixture {
  fixture f;
  scoped_fixture() { current = &f; }
  ~scoped_fixture() { current = nullptr; }
};

fixture& shared_fixture() { return *current; }

template <class T>
void check_round_trip(T value) {
  auto& sys = *shared_fixture().sys;
  const std::string before = caf::deep_to_string(value);
  {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    REQUIRE_FALSE(sink(value));
    T copy{};
    caf::binary_deserializer source{sys, buf};
    REQUIRE_FALSE(source(copy));
    CHECK(caf::deep_to_string(copy) == before);
  }
  {
    auto msg = caf::make_message(value);
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    REQUIRE_FALSE(sink(msg));
    caf::message back;
    caf::binary_deserializer source{sys, buf};
    REQUIRE_FALSE(source(back));
    REQUIRE(back.match_element<T>(0));
    CHECK(caf::deep_to_string(back.get_as<T>(0)) == before);
  }
}

CrawlJob job() { return CrawlJob{42, "http://a.example/x?y=1", "a.example", 3}; }

PageRow page() {
  PageRow p;
  p.url = "http://a.example/";
  p.host_key = "a.example";
  p.depth = 1;
  p.status_code = 200;
  p.content_type = "text/html";
  p.title = "T\xc3\xa9tulo";
  p.description = "d";
  p.bytes = 1234;
  p.fetch_ms = 17;
  p.fetched_at_ms = 1700000000000;
  p.final_url = "http://a.example/final";
  p.redirect_chain = R"([{"url":"http://a.example/","status":301}])";
  p.truncated = true;
  p.canonical_url = "http://a.example/c";
  p.attempts = 2;
  p.robots_directives = "noindex";
  p.links = {LinkRow{"http://b.example/", false}, LinkRow{"http://c.example/", true}};
  p.link_host_keys = {"b.example", "c.example"};
  p.links_dropped = 12;
  p.items = {ExtractedItem{"product", R"({"title":"A","price":"9.99"})"}};
  p.processor_failures = {ProcessorFailure{"lang", "timeout", "no answer in 5000 ms"}};
  p.etag = "W/\"5f-1a\"";
  p.last_modified = "Tue, 01 Sep 2026 10:00:00 GMT";
  p.content_digest = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";
  p.charset = "iso-8859-1";
  p.body = KeptBody{"deflate", 3, std::string("\x4b\x4c\x4a\x06\x00\xff", 6)};
  p.not_modified = true;
  p.processors_took = 0b1011;
  p.processors_failed = std::uint64_t{1} << 63;
  return p;
}

DeadLetterRow dead() { return DeadLetterRow{"http://x/", 2, "timeout", "Operation timed out", 4, 0, 99}; }

// One sample value of every catalogue type, with every field set. There is
// no generic overload: a type added to the block without a sample here does
// not compile, so no type escapes the round trip.
template <class T>
struct tag {};

// Every typed handle (messages/interfaces.h) is the actor `a` under that
// interface.
template <class... Sigs>
caf::typed_actor<Sigs...> sample(tag<caf::typed_actor<Sigs...>>, const caf::actor& a) {
  return caf::actor_cast<caf::typed_actor<Sigs...>>(a);
}
topology sample(tag<topology>, const caf::actor& a) {
  return topology{caf::actor_cast<frontier_actor>(a), caf::actor_cast<host_selector_actor>(a),
                  caf::actor_cast<processor_actor>(a), caf::actor_cast<storage_actor>(a),
                  caf::actor_cast<dead_letter_actor>(a), "node-a"};
}
fetch_settings sample(tag<fetch_settings>, const caf::actor&) {
  return fetch_settings{"ua/1", 1, 2, 3, 4, 5, 6, {"a.test:80:127.0.0.2"}, true, {"a.test", "10.0.0.1"}, 7, true, true,
                        {"X-Test: 1"}, {"{\"hosts\": \"a\", \"basic\": \"u:p\"}"}, "http://127.0.0.1:3128", false};
}
// A vector of typed handles: the actor `a` twice under that interface.
template <class... Sigs>
std::vector<caf::typed_actor<Sigs...>> sample(tag<std::vector<caf::typed_actor<Sigs...>>>, const caf::actor& a) {
  return {caf::actor_cast<caf::typed_actor<Sigs...>>(a), caf::actor_cast<caf::typed_actor<Sigs...>>(a)};
}
worker_hello sample(tag<worker_hello>, const caf::actor& a) {
  return worker_hello{caf::actor_cast<fetch_worker_actor>(a), "worker-1@node", 32};
}
worker_welcome sample(tag<worker_welcome>, const caf::actor& a) {
  return worker_welcome{sample(tag<topology>{}, a), sample(tag<fetch_settings>{}, a)};
}
node_welcome sample(tag<node_welcome>, const caf::actor& a) {
  return node_welcome{sample(tag<topology>{}, a), "max_pages: 10\nextract: [{\"name\": \"x\"}]\n", {"max_pages"}};
}
node_lanes sample(tag<node_lanes>, const caf::actor& a) {
  return node_lanes{"host-b:77", sample(tag<std::vector<parse_lane_actor>>{}, a)};
}
node_unfit sample(tag<node_unfit>, const caf::actor&) {
  return node_unfit{"host-b:77", "processors: plugin 'x': 'missing' failed as it started"};
}
CrawlJob sample(tag<CrawlJob>, const caf::actor&) {
  CrawlJob j = job();
  j.fetch_url = "http://b.example/next";
  j.fetch_host_key = "b.example";
  j.hop_urls = {"http://a.example/x?y=1"};
  j.hop_statuses = {301};
  j.etag = "\"abc\"";
  j.last_modified = "Tue, 01 Sep 2026 10:00:00 GMT";
  j.stored_digest = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";
  return j;
}
follow_redirect sample(tag<follow_redirect>, const caf::actor& a) { return follow_redirect{sample(tag<CrawlJob>{}, a)}; }
FollowedLink sample(tag<FollowedLink>, const caf::actor&) { return FollowedLink{-1, 2, "http://b/", "b"}; }
crawl_seeds sample(tag<crawl_seeds>, const caf::actor&) { return crawl_seeds{{"http://a/", "http://b/"}}; }
work_demand sample(tag<work_demand>, const caf::actor&) { return work_demand{64}; }
crawl_batch sample(tag<crawl_batch>, const caf::actor&) { return crawl_batch{{job(), job()}}; }
page_outlinks sample(tag<page_outlinks>, const caf::actor&) {
  return page_outlinks{job(), {FollowedLink{0, -1, "", ""}, FollowedLink{-1, 1, "http://b/", ""}}};
}
pages_fetched sample(tag<pages_fetched>, const caf::actor& a) {
  return pages_fetched{{page(), page()}, {sample(tag<page_outlinks>{}, a), page_outlinks{job(), {}}}, {lease_ref{42, 3}}, 9};
}
url_failed sample(tag<url_failed>, const caf::actor&) { return url_failed{job(), "dns_failure"}; }
leases_returned sample(tag<leases_returned>, const caf::actor&) { return leases_returned{{job()}}; }
stop_crawl sample(tag<stop_crawl>, const caf::actor&) { return stop_crawl{"processor_failed", "plugin 'x' gave up"}; }
crawl_finished sample(tag<crawl_finished>, const caf::actor&) {
  return crawl_finished{"processor_failed", "plugin 'x' gave up"};
}
crawl_progress sample(tag<crawl_progress>, const caf::actor&) { return crawl_progress{1, 2, 3, 4, 5, 6, true, 7, 8}; }
fetch_jobs sample(tag<fetch_jobs>, const caf::actor&) { return fetch_jobs{{job(), job()}, 11}; }
fetch_result sample(tag<fetch_result>, const caf::actor&) {
  fetch_result r;
  r.job = job();
  r.status_code = 200;
  r.content_type = "text/html";
  r.charset = "utf-8";
  r.body = std::string("<html>\0binary\xff", 14);
  r.truncated = true;
  r.final_url = "http://a/final";
  r.facts = FetchFacts{5,
                       6,
                       2,
                       {"http://a/1", "http://a/2"},
                       {301, 302},
                       "noindex",
                       "http://a/next",
                       "\"5f-1a\"",
                       "Tue, 01 Sep 2026 10:00:00 GMT",
                       true};
  r.ip_address = "127.0.0.1";
  r.request_head = "GET /final HTTP/1.1\r\nHost: a\r\n\r\n";
  r.response_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
  return r;
}
fetch_done sample(tag<fetch_done>, const caf::actor&) { return fetch_done{job(), true, 1500, 37, true}; }
fetches_done sample(tag<fetches_done>, const caf::actor&) {
  return fetches_done{{fetch_done{job(), true, 1500, 37, true}, fetch_done{job(), false, 0, 4, false}}};
}
lease_ref sample(tag<lease_ref>, const caf::actor&) { return lease_ref{42, 3}; }
pages_processed sample(tag<pages_processed>, const caf::actor&) { return pages_processed{{lease_ref{42, 3}, lease_ref{7, 1}}}; }
fetch_failure sample(tag<fetch_failure>, const caf::actor&) {
  return fetch_failure{job(), "http_503", "Service Unavailable", 503, 4, 12, 13};
}
FrontierEntry sample(tag<FrontierEntry>, const caf::actor&) {
  return FrontierEntry{7, "http://a/", 1, "http://p/", 1704153600000, "\"e\"", "Tue, 01 Sep 2026 10:00:00 GMT", "sha1:AAAA"};
}
LinkRow sample(tag<LinkRow>, const caf::actor&) { return LinkRow{"http://a/", true, true}; }
PageRow sample(tag<PageRow>, const caf::actor&) { return page(); }
DeadLetterRow sample(tag<DeadLetterRow>, const caf::actor&) { return dead(); }
ResumeState sample(tag<ResumeState>, const caf::actor&) { return ResumeState{{SeenUrl{1, 0, false}, SeenUrl{2, 3, true}, SeenUrl{0xffffffffffffffffULL, 255, false}}, 10, 3, 4}; }
StoreSummary sample(tag<StoreSummary>, const caf::actor&) { return StoreSummary{1, 2, 3, 4, 5, 6, 7, 8, 9, 14, {ProcessorFailureCount{"lang", "timeout", 3}}, 15, {"", "private_address"}, 10, {SitemapOutcomeCount{"fetched", 2}}, PageChangeCounts{10, 11, 12, 13}, {7, 0, 2}, {1, 0, 0}};
}
FrontierRefusal sample(tag<FrontierRefusal>, const caf::actor&) {
  return FrontierRefusal{FrontierEntry{3, "http://e/", 2, "http://a/"}, "max_url_length"};
}
frontier_delta sample(tag<frontier_delta>, const caf::actor& a) {
  return frontier_delta{{FrontierEntry{1, "http://a/", 0, ""}}, {FrontierEntry{2, "http://b/", 1, ""}}, {"http://c/"},
                        {"http://d/"}, {sample(tag<FrontierRefusal>{}, a)},
                        {FrontierRefusal{FrontierEntry{4, "http://f/", 1, ""}, "dns_failure"}}};
}
store_pages sample(tag<store_pages>, const caf::actor&) { return store_pages{{page(), page()}, 8}; }
store_dead_letter sample(tag<store_dead_letter>, const caf::actor&) { return store_dead_letter{dead()}; }
load_frontier sample(tag<load_frontier>, const caf::actor&) { return load_frontier{10, 500}; }
due_revisits sample(tag<due_revisits>, const caf::actor&) { return due_revisits{1700000000000, 3600000, 1000}; }
lastmod_revisits sample(tag<lastmod_revisits>, const caf::actor& a) {
  return lastmod_revisits{1700000000000, {sample(tag<FrontierEntry>{}, a)}};
}
frontier_rows sample(tag<frontier_rows>, const caf::actor&) { return frontier_rows{{FrontierEntry{1, "http://a/", 0, ""}}}; }
begin_run sample(tag<begin_run>, const caf::actor&) {
  return begin_run{1, "[\"http://a/\"]", 3600000, true, 60000, 86400000};
}
end_run sample(tag<end_run>, const caf::actor&) { return end_run{1, 2, "signal"}; }
summary_request sample(tag<summary_request>, const caf::actor&) { return summary_request{5, {"http://127.0.0.1/"}}; }
url_refused sample(tag<url_refused>, const caf::actor&) { return url_refused{job(), "robots_txt"}; }
robots_fetch sample(tag<robots_fetch>, const caf::actor&) { return robots_fetch{"a.test", "http://a.test/robots.txt"}; }
robots_result sample(tag<robots_result>, const caf::actor&) {
  return robots_result{"a.test", "http://a.test/robots.txt", 200, "User-agent: *\nDisallow: /x\n", "", 12};
}
DomainNode sample(tag<DomainNode>, const caf::actor&) {
  return DomainNode{"a.test", "https://a.test/", 1, "\"e\"", "Tue, 01 Sep 2026 10:00:00 GMT", "sha1:AAAA"};
}
DomainResume sample(tag<DomainResume>, const caf::actor&) {
  return DomainResume{true, {DomainNode{"a.test", "https://a.test/", 1}}, {DomainNode{"b.test", "", 3}}, 7, 9};
}
RobotsRecord sample(tag<RobotsRecord>, const caf::actor&) {
  return RobotsRecord{"a.test:8080", "http://a.test:8080/robots.txt", 200, "parsed", 1500, {"http://a.test/sitemap.xml"},
                      42};
}
store_robots sample(tag<store_robots>, const caf::actor& a) { return store_robots{sample(tag<RobotsRecord>{}, a)}; }
ResumeQuery sample(tag<ResumeQuery>, const caf::actor&) { return ResumeQuery{CrawlProfile::domains, "a.test:8080", 3}; }
FrontierResume sample(tag<FrontierResume>, const caf::actor& a) {
  return FrontierResume{sample(tag<ResumeState>{}, a), sample(tag<DomainResume>{}, a)};
}
resume_request sample(tag<resume_request>, const caf::actor& a) { return resume_request{sample(tag<ResumeQuery>{}, a)}; }
StageTimes sample(tag<StageTimes>, const caf::actor&) { return StageTimes{"parse", 3, 400, 50, 20}; }
deltas_written sample(tag<deltas_written>, const caf::actor&) { return deltas_written{4242}; }
relink_fetched sample(tag<relink_fetched>, const caf::actor&) {
  return relink_fetched{FrontierEntry{0, "http://a/x", 1, "http://b/"}};
}
fetched_links sample(tag<fetched_links>, const caf::actor&) { return fetched_links{{"http://a/y", "http://a/z"}}; }
ExtractedItem sample(tag<ExtractedItem>, const caf::actor&) { return ExtractedItem{"recipe", R"({"name":"Soup"})"}; }
ProcessorFailureCount sample(tag<ProcessorFailureCount>, const caf::actor&) {
  return ProcessorFailureCount{"wordcount", "timeout", 2};
}
ProcessorFailure sample(tag<ProcessorFailure>, const caf::actor&) {
  return ProcessorFailure{"wordcount", "crashed", "exit status 1"};
}
archive_exchange sample(tag<archive_exchange>, const caf::actor&) {
  return archive_exchange{"http://a.test/robots.txt", 1700000000000, "::1", "GET /robots.txt HTTP/1.1\r\n\r\n",
                          "HTTP/1.1 200 OK\r\n\r\n", std::string("User-agent: *\0", 14), true};
}

SitemapLink sample(tag<SitemapLink>, const caf::actor&) { return SitemapLink{"http://a/p", "a", 1704153600000}; }
SitemapRow sample(tag<SitemapRow>, const caf::actor&) {
  return SitemapRow{"http://a/sitemap.xml", "a", "failed", "gzip_bomb", 3, 2, 42, "http://a/robots.txt"};
}
SitemapOutcomeCount sample(tag<SitemapOutcomeCount>, const caf::actor&) {
  return SitemapOutcomeCount{"refused/robots_txt", 2};
}
sitemap_fetch sample(tag<sitemap_fetch>, const caf::actor&) {
  return sitemap_fetch{CrawlJob{kSitemapSeqBit | 1, "http://a/s.xml", "a", 0, 2}, {{"http://a", "/"}, {"https://b", "/x/"}}};
}
SitemapCounts sample(tag<SitemapCounts>, const caf::actor&) {
  SitemapCounts c;
  c.urls_found = 3;
  c.urls_accepted = 2;
  c.dropped[0] = 1;
  c.dropped[kSitemapDropCount - 1] = 4;
  c.lastmod_missing = 5;
  c.lastmod_invalid = 6;
  return c;
}
SitemapReport sample(tag<SitemapReport>, const caf::actor& a) {
  SitemapReport r;
  r.kind = SitemapKind::index;
  r.error = SitemapError::entities;
  r.error_detail = "entity";
  r.gzipped = true;
  r.bytes_in = 100;
  r.bytes_decoded = 1000;
  r.counts = sample(tag<SitemapCounts>{}, a);
  return r;
}
SitemapParse sample(tag<SitemapParse>, const caf::actor& a) {
  SitemapParse p;
  p.failure = "";
  p.cut_short = "connection_reset";
  p.redirect_to = "https://a/s.xml";
  p.report = sample(tag<SitemapReport>{}, a);
  p.links = {SitemapLink{"http://a/p", "", 9}};
  p.out_of_scope = 4;
  return p;
}
sitemap_parsed sample(tag<sitemap_parsed>, const caf::actor& a) {
  return sitemap_parsed{CrawlJob{kSitemapSeqBit | 1, "http://a/s.xml", "a", 0, 1}, sample(tag<SitemapParse>{}, a), 17};
}
sitemap_links sample(tag<sitemap_links>, const caf::actor&) {
  return sitemap_links{"http://a/s.xml", {SitemapLink{"http://a/p", "a", 0}, SitemapLink{"http://a/q", "a", 7}}};
}
sitemaps_open sample(tag<sitemaps_open>, const caf::actor&) { return sitemaps_open{3}; }
store_sitemap sample(tag<store_sitemap>, const caf::actor& a) {
  return store_sitemap{{sample(tag<SitemapRow>{}, a)}, {SitemapOutcomeCount{"sitemap_seen", 1}}};
}
load_sitemaps sample(tag<load_sitemaps>, const caf::actor&) { return load_sitemaps{1700000000000}; }
sitemap_history sample(tag<sitemap_history>, const caf::actor&) { return sitemap_history{{"http://a/s.xml"}, {"http://a/older.xml"}, {"http://a/index.xml"}}; }

template <caf::type_id_t... Is>
void round_trip_every_type(const caf::actor& a, std::integer_sequence<caf::type_id_t, Is...>) {
  using block = caf::id_block::actorcrawl;
  (check_round_trip(sample(tag<typename caf::type_by_id<block::begin + Is>::type>{}, a)), ...);
}

constexpr auto kBlockSize = caf::id_block::actorcrawl::end - caf::id_block::actorcrawl::begin;

template <caf::type_id_t... Is>
std::vector<std::string> catalogue_names(std::integer_sequence<caf::type_id_t, Is...>) {
  using block = caf::id_block::actorcrawl;
  return {caf::type_name_by_id<block::begin + Is>::value...};
}

// Each type's name as the actor system knows it: what a peer must match.
template <caf::type_id_t... Is>
std::vector<std::string> registered_names(caf::actor_system& sys, std::integer_sequence<caf::type_id_t, Is...>) {
  using block = caf::id_block::actorcrawl;
  return {sys.types().portable_name(caf::make_rtti_pair<typename caf::type_by_id<block::begin + Is>::type>())...};
}

struct AtomEntry {
  const char* name;
  const char* text;
  caf::atom_value value;
};

std::vector<AtomEntry> catalogue_atoms() {
#define ACTORCRAWL_ATOM_ENTRY(name, text) AtomEntry{#name, text, name::value},
  return {ACTORCRAWL_ATOMS(ACTORCRAWL_ATOM_ENTRY)};
#undef ACTORCRAWL_ATOM_ENTRY
}

}  // namespace

TEST_CASE("every catalogue type round-trips", "[messages]") {
  scoped_fixture fx;
  caf::scoped_actor self{*shared_fixture().sys};
  round_trip_every_type(caf::actor{self}, std::make_integer_sequence<caf::type_id_t, kBlockSize>{});
}

// A page's row crosses packed, its links inside it
// (core/crawl/record_packing.h): packed bytes that do not decode make the
// deserializer fail with an error, never a row with half its links.
TEST_CASE("a row whose packed links do not decode is refused by the deserializer", "[messages]") {
  scoped_fixture fx;
  auto& sys = *shared_fixture().sys;
  PageRow row = page();
  row.links = {LinkRow{"http://b.example/zz", false, true}};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(row));
  const std::string packed = pack_link_rows(row.links);
  auto at = std::search(buf.begin(), buf.end(), packed.begin(), packed.end());
  REQUIRE(at != buf.end());
  *(at + static_cast<std::ptrdiff_t>(packed.size()) - 1) = 0x7f;  // flags with unknown bits
  PageRow copy;
  caf::binary_deserializer source{sys, buf};
  CHECK(source(copy));
  CHECK(copy.links.empty());
}

TEST_CASE("every catalogue type has its registered name", "[messages]") {
  scoped_fixture fx;
  auto& sys = *shared_fixture().sys;
  const auto names = catalogue_names(std::make_integer_sequence<caf::type_id_t, kBlockSize>{});
  CHECK(names.size() == static_cast<std::size_t>(kBlockSize));
  const auto registered = registered_names(sys, std::make_integer_sequence<caf::type_id_t, kBlockSize>{});
  REQUIRE(registered.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(registered[i] == names[i]);
    CHECK(std::count(names.begin(), names.end(), names[i]) == 1);
  }
  CHECK(std::string{caf::type_name<crawl_batch>::value} == "actorcrawl::crawl_batch");
}

TEST_CASE("atoms are distinct and fit CAF's ten characters", "[messages]") {
  const auto atoms = catalogue_atoms();
  CHECK(atoms.size() >= 7);
  for (const auto& a : atoms) {
    INFO(a.name);
    const std::string text = a.text;
    CHECK(text.size() <= 10);
    CHECK(text.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_ ") == std::string::npos);
    CHECK(caf::to_string(a.value) == text);
    CHECK(std::count_if(atoms.begin(), atoms.end(), [&](const AtomEntry& b) { return b.value == a.value; }) == 1);
  }
}

// docs/architecture.md's message catalogue is the reader's copy of the
// block: every type and every atom must be in it.
TEST_CASE("docs/architecture.md names every message type and atom", "[messages]") {
  const std::string doc = testing::architecture_doc();
  REQUIRE_FALSE(doc.empty());
  const auto at = doc.find("## Message catalogue");
  REQUIRE(at != std::string::npos);
  const std::string section = doc.substr(at, doc.find("\n## ", at + 1) - at);
  for (const auto& full : catalogue_names(std::make_integer_sequence<caf::type_id_t, kBlockSize>{})) {
    std::string name = full;
    for (auto p = name.find("actorcrawl::"); p != std::string::npos; p = name.find("actorcrawl::"))
      name.erase(p, 12);
    INFO(name);
    CHECK(section.find("`" + name + "`") != std::string::npos);
  }
  for (const auto& a : catalogue_atoms()) {
    INFO(a.name);
    CHECK(section.find(std::string{"`"} + a.name + "`") != std::string::npos);
  }
}

TEST_CASE("the catalogue digest is 16 hex digits and the same every time", "[messages]") {
  const auto digest = actorcrawl::catalogue_digest();
  CHECK(digest.size() == 16);
  CHECK(digest.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(actorcrawl::catalogue_digest() == digest);
}
