// The HostSelector's sitemap bookkeeping without actors: documents as
// leases, each ending once with its row; what earlier runs read is not
// fetched again; a lost worker's document goes out again, then fails.
#include <catch2/catch.hpp>

#include <map>

#include "core/hosts/sitemap_ledger.h"
#include "core/hosts/sitemap_reading.h"

using namespace actorcrawl;

namespace {

SitemapLedger ready_ledger(std::vector<std::string> read_before = {}) {
  SitemapLedgerSettings settings;
  settings.seeds = {"http://a.test/"};
  SitemapLedger ledger(settings);
  ledger.history_loaded(read_before);
  return ledger;
}

SitemapParse parsed(SitemapKind kind, std::vector<std::string> urls) {
  SitemapParse p;
  p.report.kind = kind;
  p.report.counts.urls_found = urls.size();
  for (auto& u : urls)
    p.links.push_back(SitemapLink{std::move(u), "", 0});
  return p;
}

}  // namespace

TEST_CASE("sitemaps named by robots.txt become leases with sitemap seqs, once each", "[sitemap_ledger]") {
  auto ledger = ready_ledger();
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/s.xml", "http://a.test/s.xml"});
  const auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(is_sitemap_seq(jobs[0].seq));
  CHECK(jobs[0].url == "http://a.test/s.xml");
  CHECK(jobs[0].host_key == "a.test");
  CHECK(ledger.open() == 1);
  auto read = ledger.read(jobs[0].seq, parsed(SitemapKind::urlset, {"http://a.test/p"}), 5);
  REQUIRE(read);
  CHECK(read->row.status == "fetched");
  REQUIRE(read->pages.size() == 1);
  CHECK(read->pages[0].host_key == "a.test");
  CHECK(ledger.open() == 0);
  // A second answer for the same document: nothing.
  CHECK_FALSE(ledger.read(jobs[0].seq, parsed(SitemapKind::urlset, {"http://a.test/p"}), 6));
}

TEST_CASE("a seed host without Sitemap lines has its /sitemap.xml tried and others do not", "[sitemap_ledger]") {
  auto ledger = ready_ledger();
  ledger.on_robots("http://a.test/robots.txt", {});
  ledger.on_robots("http://b.test/robots.txt", {});
  const auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].url == "http://a.test/sitemap.xml");
}

TEST_CASE("nothing is handed out before the history and what an earlier run read is skipped", "[sitemap_ledger]") {
  SitemapLedger ledger;
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/old.xml", "http://a.test/new.xml"});
  CHECK(ledger.take_jobs().empty());
  CHECK(ledger.open() == 2);
  ledger.history_loaded({"http://a.test/old.xml"});
  const auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].url == "http://a.test/new.xml");
  const auto refusals = ledger.take_refusals();
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].outcome == "sitemap_read_before");
}

TEST_CASE("a loop of indexes ends: each fetched once, the repeat counted", "[sitemap_ledger]") {
  auto ledger = ready_ledger();
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/a.xml"});
  auto a = ledger.take_jobs();
  REQUIRE(a.size() == 1);
  REQUIRE(ledger.read(a[0].seq, parsed(SitemapKind::index, {"http://a.test/b.xml"}), 1)->row.urls_accepted == 1);
  auto b = ledger.take_jobs();
  REQUIRE(b.size() == 1);
  CHECK(b[0].url == "http://a.test/b.xml");
  CHECK(ledger.read(b[0].seq, parsed(SitemapKind::index, {"http://a.test/a.xml"}), 2)->row.urls_accepted == 0);
  CHECK(ledger.take_jobs().empty());
  CHECK(ledger.open() == 0);
  const auto refusals = ledger.take_refusals();
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].outcome == "sitemap_seen");
  CHECK(refusals[0].count == 1);
}

TEST_CASE("a document too deep below robots.txt is refused with a row", "[sitemap_ledger]") {
  SitemapLedgerSettings settings;
  settings.limits.max_depth = 0;
  SitemapLedger ledger(settings);
  ledger.history_loaded({});
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/i.xml"});
  auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  ledger.read(jobs[0].seq, parsed(SitemapKind::index, {"http://a.test/deep.xml"}), 1);
  const auto rows = ledger.take_refused_rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].url == "http://a.test/deep.xml");
  CHECK(rows[0].status == "refused");
  CHECK(rows[0].reason == "sitemap_depth");
}

TEST_CASE("a redirect ends the document as redirected and its target becomes a document of its own",
          "[sitemap_ledger]") {
  SitemapLedgerSettings settings;
  settings.limits.max_documents_per_host = 1;
  SitemapLedger ledger(settings);
  ledger.history_loaded({"http://c.test/read-before.xml"});
  ledger.on_robots("http://a.test/robots.txt",
                   {"http://a.test/s.xml", "http://a.test/moved.xml", "http://a.test/gone.xml"});
  // One document per host: only s.xml was queued on a.test.
  auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  SitemapParse moved;
  moved.failure = "http_301";
  moved.redirect_to = "http://b.test/s.xml";
  auto read = ledger.read(jobs[0].seq, moved, 7);
  REQUIRE(read);
  CHECK(read->row.url == "http://a.test/s.xml");
  CHECK(read->row.status == "redirected");
  CHECK(read->row.reason == "http_301");
  CHECK(read->pages.empty());
  CHECK(ledger.open() == 1);
  const auto target = ledger.take_jobs();
  REQUIRE(target.size() == 1);
  CHECK(target[0].url == "http://b.test/s.xml");
  CHECK(target[0].host_key == "b.test");
  CHECK(is_sitemap_seq(target[0].seq));
  auto listed = ledger.read(target[0].seq, parsed(SitemapKind::urlset, {"http://a.test/p"}), 8);
  REQUIRE(listed);
  CHECK(listed->row.status == "fetched");
  REQUIRE(listed->pages.size() == 1);  // a.test's page: the grant of a.test's robots.txt
  CHECK(listed->pages[0].url == "http://a.test/p");

  // d.test's sitemap, read: a redirect to `target`; its row's status.
  const auto d_redirects_to = [&](const std::string& status, const std::string& target) {
    SitemapParse again;
    again.failure = status;
    again.redirect_to = target;
    ledger.on_robots("http://d.test/robots.txt", {"http://d.test/s.xml"});
    auto d = ledger.take_jobs();
    REQUIRE(d.size() == 1);
    return ledger.read(d[0].seq, again, 9)->row.status;
  };
  SECTION("a target its host has no room for is refused with a row") {
    CHECK(d_redirects_to("http_302", "http://b.test/other.xml") == "redirected");
    const auto rows = ledger.take_refused_rows();
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].url == "http://b.test/other.xml");
    CHECK(rows[0].reason == "sitemap_host_cap");
    CHECK(ledger.open() == 0);
  }
  SECTION("a target an earlier run read is not fetched again") {
    CHECK(d_redirects_to("http_308", "http://c.test/read-before.xml") == "redirected");
    CHECK(ledger.take_jobs().empty());
    CHECK(ledger.open() == 0);
  }
}

TEST_CASE("sitemaps the user named are read from the start and may list their host's and the seeds' URLs",
          "[sitemap_ledger]") {
  SitemapLedgerSettings settings;
  settings.seeds = {"https://a.test/"};
  settings.given = {"https://cdn.test/maps/all.xml", "https://cdn.test/read-before.xml", "not a url"};
  SitemapLedger ledger(settings);
  CHECK(ledger.take_jobs().empty());  // not before the history
  ledger.history_loaded({"https://cdn.test/read-before.xml"});
  const auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].url == "https://cdn.test/maps/all.xml");
  const SitemapScope* scope = ledger.scope_of(jobs[0].seq);
  REQUIRE(scope);
  CHECK_FALSE(scope->check(*Url::parse("https://a.test/any/page")));  // a seed's host
  CHECK_FALSE(scope->check(*Url::parse("https://cdn.test/elsewhere")));  // its own host
  CHECK(scope->check(*Url::parse("https://b.test/")) == SitemapDrop::other_host);
  std::map<std::string, std::int64_t> refusals;
  for (const auto& r : ledger.take_refusals())
    refusals[r.outcome] = r.count;
  CHECK(refusals == std::map<std::string, std::int64_t>{{"sitemap_bad_url", 1}, {"sitemap_read_before", 1}});
}

TEST_CASE("the sitemaps a robots.txt names are read only for a host the crawl crawls", "[sitemap_ledger]") {
  SitemapLedgerSettings settings;
  settings.crawls_host = [](const Url& root) { return root.str() == "http://a.test/"; };
  SitemapLedger ledger(settings);
  ledger.history_loaded({});
  ledger.on_robots("http://cdn.test/robots.txt", {"http://cdn.test/own.xml", "http://cdn.test/more.xml"});
  ledger.on_robots("http://a.test/robots.txt", {"http://cdn.test/for-a.xml"});
  const auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].url == "http://cdn.test/for-a.xml");
  const auto refusals = ledger.take_refusals();
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].outcome == "sitemap_host_not_crawled");
  CHECK(refusals[0].count == 2);
}

TEST_CASE("a document whose worker died goes out again, then fails as worker_lost", "[sitemap_ledger]") {
  SitemapLedgerSettings settings;
  settings.max_attempts = 2;
  SitemapLedger ledger(settings);
  ledger.history_loaded({});
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/s.xml"});
  auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  auto lost = ledger.lost(jobs[0], 1);
  REQUIRE(lost.retry);
  CHECK(lost.retry->attempt == 2);
  CHECK_FALSE(lost.row);
  // A report of the first attempt's lease is stale now.
  CHECK_FALSE(ledger.lost(jobs[0], 2).retry);
  auto last = ledger.lost(*lost.retry, 3);
  CHECK_FALSE(last.retry);
  REQUIRE(last.row);
  CHECK(last.row->status == "failed");
  CHECK(last.row->reason == "worker_lost");
  CHECK(ledger.open() == 0);
}

TEST_CASE("stopping ends what was not handed out as stopped", "[sitemap_ledger]") {
  SitemapLedger ledger;
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/s.xml"});
  const auto rows = ledger.stop(9);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].reason == "stopped");
  CHECK(ledger.open() == 0);
}

TEST_CASE("a parse lane fails a non-2xx response by its status and holds page URLs to the crawl's scope",
          "[sitemap_ledger]") {
  const auto scope = SitemapScope::of_location(*Url::parse("http://a.test/s.xml"));
  const auto in_scope = [](const Url& url) { return url.str().find("/out") == std::string::npos; };
  CHECK(read_sitemap(scope, SitemapResponse{404, "", "", ""}, in_scope).failure == "http_404");
  CHECK(read_sitemap(scope, SitemapResponse{0, "timeout", "", ""}, in_scope).failure == "timeout");
  // A redirect names its target; a Location on anything else is no redirect.
  const auto moved = read_sitemap(scope, SitemapResponse{301, "", "", "https://a.test/s.xml"}, in_scope);
  CHECK(moved.failure == "http_301");
  CHECK(moved.redirect_to == "https://a.test/s.xml");
  CHECK(read_sitemap(scope, SitemapResponse{404, "", "", "https://a.test/s.xml"}, in_scope).redirect_to.empty());
  CHECK(read_sitemap(scope, SitemapResponse{302, "", "", ""}, in_scope).redirect_to.empty());
  const auto read = read_sitemap(scope, SitemapResponse{200, "", "http://a.test/in\nhttp://a.test/out\n", ""}, in_scope);
  CHECK(read.failure.empty());
  CHECK(read.report.kind == SitemapKind::text);
  REQUIRE(read.links.size() == 1);
  CHECK(read.links[0].url == "http://a.test/in");
  CHECK(read.out_of_scope == 1);
}

// A document read as it streams in: what came before a transfer broke off
// is kept and the break named; a body of a response that is not 2xx is
// never read.
TEST_CASE("sitemap reading: entries before a reset or a timeout are kept, the break named", "[sitemap_ledger]") {
  const auto scope = SitemapScope::of_location(*Url::parse("http://a.test/s.xml"));
  for (const char* error : {"connection_reset", "timeout"}) {
    INFO(error);
    SitemapReading reading(scope);
    std::string body = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">";
    for (int i = 0; i < 1000; ++i)
      body += "<url><loc>http://a.test/p/" + std::to_string(i) + "</loc></url>";
    body += "<url><loc>http://a.test/cut";
    // In pieces, as a transfer hands them over.
    for (std::size_t at = 0; at < body.size(); at += 1000)
      CHECK(reading.feed(200, std::string_view(body).substr(at, 1000)));
    const SitemapParse parse = reading.finish(SitemapResponse{200, error, "", ""});
    CHECK(parse.failure.empty());
    CHECK(parse.cut_short == error);
    REQUIRE(parse.links.size() == 1000);
    CHECK(parse.links.back().url == "http://a.test/p/999");
    CHECK(parse.report.counts.urls_found == 1000);
  }
  // The transfer failed before any body: a failure, as before.
  SitemapReading nothing(scope);
  CHECK(nothing.finish(SitemapResponse{0, "timeout", "", ""}).failure == "timeout");
  // A 404's body (an HTML error page) is not read: feed says stop.
  SitemapReading missing(scope);
  CHECK_FALSE(missing.feed(404, "<html>not here</html>"));
  const SitemapParse gone = missing.finish(SitemapResponse{404, "", "", ""});
  CHECK(gone.failure == "http_404");
  CHECK(gone.links.empty());
}

TEST_CASE("sitemap ledger: a document cut short is failed with the break, its URLs kept", "[sitemap_ledger]") {
  SitemapLedger ledger;
  ledger.history_loaded({});
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/s.xml"});
  auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 1);
  SitemapParse parse;
  parse.cut_short = "connection_reset";
  parse.report.kind = SitemapKind::urlset;
  parse.report.error = SitemapError::malformed;  // the document ended early: the break's doing
  parse.report.counts.urls_found = 2;
  parse.report.counts.urls_accepted = 2;
  parse.links = {SitemapLink{"http://a.test/p1", "", 0}, SitemapLink{"http://a.test/p2", "", 0}};
  const auto read = ledger.read(jobs[0].seq, parse, 5);
  REQUIRE(read);
  CHECK(read->pages.size() == 2);
  CHECK(read->row.status == "failed");
  CHECK(read->row.reason == "connection_reset");
  CHECK(read->row.urls_found == 2);
}

namespace {

SitemapLedger budget_ledger(std::int64_t max_pages) {
  SitemapLedgerSettings settings;
  settings.seeds = {"http://a.test/"};
  settings.max_pages = max_pages;
  SitemapLedger ledger(settings);
  ledger.history_loaded({});
  return ledger;
}

std::vector<std::string> children(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("http://a.test/maps/" + std::to_string(i) + ".xml");
  return out;
}

}  // namespace

TEST_CASE("a run hands out at most max_pages documents: the rest end max_pages and their index is to be read again",
          "[sitemap_ledger]") {
  auto ledger = budget_ledger(3);
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/index.xml"});
  const auto index = ledger.take_jobs(10);
  REQUIRE(index.size() == 1);
  auto read = ledger.read(index[0].seq, parsed(SitemapKind::index, children(5)), 20);
  REQUIRE(read);
  CHECK(read->row.status == "fetched");
  CHECK(read->row.named_by == "http://a.test/robots.txt");
  // The index was one of the three.
  const auto jobs = ledger.take_jobs(30);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].url == "http://a.test/maps/0.xml");
  CHECK(ledger.open() == 2);  // the ones held back are no longer open
  std::map<std::string, std::string> rows;
  for (const auto& row : ledger.take_refused_rows()) {
    rows[row.url] = row.status + " " + row.reason + " " + row.named_by + " " + std::to_string(row.fetched_at_ms);
  }
  CHECK(rows == std::map<std::string, std::string>{
                  {"http://a.test/index.xml", "fetched children_unread http://a.test/robots.txt 20"},
                  {"http://a.test/maps/2.xml", "failed max_pages http://a.test/index.xml 30"},
                  {"http://a.test/maps/3.xml", "failed max_pages http://a.test/index.xml 30"},
                  {"http://a.test/maps/4.xml", "failed max_pages http://a.test/index.xml 30"}});
}

TEST_CASE("a run stops handing out documents once its sitemaps gave max_pages page URLs", "[sitemap_ledger]") {
  auto ledger = budget_ledger(10);
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/a.xml", "http://a.test/b.xml"});
  auto jobs = ledger.take_jobs();
  REQUIRE(jobs.size() == 2);
  std::vector<std::string> pages;
  for (int i = 0; i < 10; ++i)
    pages.push_back("http://a.test/p" + std::to_string(i));
  REQUIRE(ledger.read(jobs[0].seq, parsed(SitemapKind::urlset, pages), 1));
  // b was handed out before: it is read whole. c, named later, is not.
  REQUIRE(ledger.read(jobs[1].seq, parsed(SitemapKind::urlset, {"http://a.test/q"}), 2)->pages.size() == 1);
  ledger.reread({"http://a.test/c.xml"});
  CHECK(ledger.take_jobs(3).empty());
  const auto rows = ledger.take_refused_rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].url == "http://a.test/c.xml");
  CHECK(rows[0].reason == "max_pages");
  CHECK(rows[0].named_by.empty());
}

TEST_CASE("a stop marks every index above a document it ended, each once", "[sitemap_ledger]") {
  auto ledger = budget_ledger(0);
  ledger.on_robots("http://a.test/robots.txt", {"http://a.test/top.xml"});
  auto top = ledger.take_jobs();
  REQUIRE(ledger.read(top.at(0).seq, parsed(SitemapKind::index, {"http://a.test/mid.xml"}), 1));
  auto mid = ledger.take_jobs();
  REQUIRE(ledger.read(mid.at(0).seq, parsed(SitemapKind::index, children(3)), 2));
  auto leaves = ledger.take_jobs();
  REQUIRE(leaves.size() == 3);
  // One leaf was read, one was out when the crawl stopped (given back),
  // one never went out.
  REQUIRE(ledger.read(leaves[0].seq, parsed(SitemapKind::urlset, {"http://a.test/p"}), 3));
  REQUIRE(ledger.failed(leaves[1].seq, "stopped", 4));
  std::vector<std::string> marked;
  for (const auto& row : ledger.take_refused_rows())
    marked.push_back(row.url + " " + row.reason);
  CHECK(marked == std::vector<std::string>{"http://a.test/mid.xml children_unread", "http://a.test/top.xml children_unread"});
  CHECK(ledger.stop(5).empty());  // the third was handed out: its lease comes back as failed/stopped
  REQUIRE(ledger.failed(leaves[2].seq, "stopped", 6));
  CHECK(ledger.take_refused_rows().empty());  // marked already
}
