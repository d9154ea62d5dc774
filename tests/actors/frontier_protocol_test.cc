// The FrontierActor's protocol, message by message: leases only on demand
// and within max_in_flight, each lease ended once, links queued one level
// deeper, leases handed back going out first, and the end of the crawl
// announced only after Storage has flushed.
//
// The actor runs on CAF's deterministic test scheduler; its neighbours are
// stand-ins whose mailboxes the tests read (Storage answers as an empty
// database would).
#define CAF_SUITE frontier_protocol

#include "actors/frontier_actor.h"

#include "protocol_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;

namespace {

// Leases and settled URLs are named by these throughout.
const std::string a1 = "http://a.test/1";
const std::string a2 = "http://a.test/2";
const std::string b3 = "http://b.test/3";
const std::string b4 = "http://b.test/4";

// A sitemap on a.test, and the page URL it lists.
const std::string root = "http://a.test/";
const std::string listed = "http://a.test/listed";
const std::string sitemap = "http://a.test/sitemap.xml";
constexpr std::int64_t kLastmod = 1704153600000;
sitemap_links listing() { return sitemap_links{sitemap, {SitemapLink{listed, "a.test", kLastmod}}}; }

FrontierSettings site_settings() {
  FrontierSettings s;
  s.profile = CrawlProfile::site;
  s.site.window = 100;
  s.site.max_pages = 100;
  s.site.max_depth = 3;
  s.max_in_flight = 100;
  return s;
}

frontier_delta added(std::vector<FrontierEntry> rows) {
  frontier_delta d;
  d.added = std::move(rows);
  return d;
}

// A store_pages whose rows are these pages', in this order, sent at any
// time (sent_us is the sender's clock).
pattern<store_pages> rows_of(std::vector<std::string> urls) {
  std::string text = caf::deep_to_string(urls);
  return {"store_pages(rows of " + text + ", _)", [text](const store_pages& m) {
            std::vector<std::string> got;
            for (const auto& row : m.pages)
              got.push_back(row.url);
            return caf::deep_to_string(got) == text;
          }};
}

struct frontier_fixture : protocol_fixture {
  // The HostSelector asks for work and hands leases back, the Processor
  // reports fetched pages, the DeadLetter failures; the observer starts
  // and stops the crawl and hears of its end.
  caf::actor storage = spawn_as("storage", storage_stub);
  caf::actor selector = spawn_as("host_selector", sink_stub);
  caf::actor processor = spawn_as("processor", sink_stub);
  caf::actor dead_letter = spawn_as("dead_letter", sink_stub);
  caf::actor observer = spawn_as("observer", sink_stub);
  caf::actor frontier;

  frontier_fixture() {
    run();  // the stand-ins start
  }

  // Wires the frontier and hands it `seeds`: Storage has the resume
  // request, not yet answered.
  void seed(FrontierSettings settings, const std::vector<std::string>& seeds) {
    frontier = named(spawn_frontier(sys, std::move(settings), caf::actor_cast<crawl_observer_actor>(observer)), "frontier");
    deliver(observer, frontier, roster(frontier, selector, processor, storage, dead_letter));
    deliver(observer, frontier, crawl_seeds{seeds});
  }

  // seed(), and checks the start: resume asked of Storage, then the seeds
  // (already normalized, each its own row) persisted as queued rows 1..n,
  // and nothing leased yet.
  void start(FrontierSettings settings, const std::vector<std::string>& seeds) {
    seed(std::move(settings), seeds);
    expect((resume_request), from(frontier).to(storage).with(equals(resume_request{ResumeQuery{}})));
    expect((FrontierResume), from(storage).to(frontier));
    std::vector<FrontierEntry> rows;
    for (std::size_t i = 0; i < seeds.size(); ++i)
      rows.push_back(FrontierEntry{static_cast<std::int64_t>(i + 1), seeds[i], 0, ""});
    expect((frontier_delta), from(frontier).to(storage).with(equals(added(rows))));
    CAF_CHECK_EQUAL(pending(), "");
  }

  void demand(std::int32_t slots) { deliver(selector, frontier, work_demand{slots}); }

  // A lane reports pages fetched: each lease with the links found on its
  // page, all of them followed, and the leases it ended with a dead letter.
  // Their rows go on to Storage before anything else the Frontier sends it,
  // and then the HostSelector hears that every lease of the batch left its
  // node (checked here).
  void fetched(std::vector<std::pair<CrawlJob, std::vector<DiscoveredLink>>> pages,
               std::vector<lease_ref> dead_lettered = {}) {
    pages_fetched m;
    m.dead_lettered = dead_lettered;
    std::vector<lease_ref> left;
    for (const auto& page : pages)
      left.push_back(lease_ref{page.first.seq, page.first.attempt});
    left.insert(left.end(), dead_lettered.begin(), dead_lettered.end());
    for (auto& [leased, links] : pages) {
      PageRow row;
      row.url = leased.url;
      row.host_key = leased.host_key;
      row.depth = leased.depth;
      for (const auto& link : links) {
        row.links.push_back(LinkRow{link.url, false, true});
        if (link.host_key != row.host_key)
          row.link_host_keys.push_back(link.host_key);
      }
      auto follow = followed_by_position(row, std::move(links));
      m.rows.push_back(std::move(row));
      m.pages.push_back(page_outlinks{std::move(leased), std::move(follow)});
    }
    std::vector<std::string> urls;
    for (const auto& row : m.rows)
      urls.push_back(row.url);
    deliver(processor, frontier, std::move(m));
    if (!urls.empty())
      expect((store_pages), from(frontier).to(storage).with(rows_of(urls)));
    expect((pages_processed), from(frontier).to(selector).with(where<pages_processed>(
                                                                 "the batch's leases", [left](const pages_processed& p) {
                                                                   if (p.leases.size() != left.size())
                                                                     return false;
                                                                   for (std::size_t i = 0; i < left.size(); ++i)
                                                                     if (p.leases[i].seq != left[i].seq ||
                                                                         p.leases[i].attempt != left[i].attempt)
                                                                       return false;
                                                                   return true;
                                                                 })));
  }


  crawl_progress progress() { return ask<crawl_progress>(frontier, progress_atom_v); }

  // The end of the crawl as the observer must see it: the last rows, then a
  // flush, and crawl_finished only once Storage has answered it.
  void expect_finish(const frontier_delta& last_rows, const std::string& reason) {
    expect((frontier_delta), from(frontier).to(storage).with(equals(last_rows)));
    expect((flush_atom), from(frontier).to(storage));
    CAF_CHECK(!has_mail(observer));
    expect((ok_atom), from(storage).to(frontier));
    expect((crawl_finished), from(frontier).to(observer).with(equals(crawl_finished{reason})));
    CAF_CHECK_EQUAL(pending(), "");
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(frontier_protocol_tests, frontier_fixture)

// Nothing leaves unasked, and demand is paid in BFS order.
CAF_TEST(leases_only_on_demand) {
  start(site_settings(), {a1, a2, b3});
  // The seeds are queued (checked in start) but no crawl_batch went out.
  CAF_CHECK(!has_mail(selector));
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  demand(5);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(3, b3, "b.test")}})));
  // Four slots stay owed; there is nothing to pay them with.
  CAF_CHECK_EQUAL(pending(), "");
}

// A fetched page settles its lease, and its links become jobs
// one level deeper, persisted before they can be leased.
CAF_TEST(fetched_pages_settle_leases_and_queue_links) {
  const std::string root = "http://a.test/";
  start(site_settings(), {root});
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, root, "a.test")}})));
  // The page links back to itself: a seen URL is not queued again.
  fetched({{job(1, root, "a.test"),
            {DiscoveredLink{"http://a.test/x", "a.test"}, DiscoveredLink{root, "a.test"},
             DiscoveredLink{"http://b.test/y", "b.test"}}}});
  frontier_delta delta = added({FrontierEntry{2, "http://a.test/x", 1, root}, FrontierEntry{3, "http://b.test/y", 1, root}});
  delta.done = {root};
  expect((frontier_delta), from(frontier).to(storage).with(equals(delta)));
  // No demand is owed, so the new jobs wait for the next work_demand.
  CAF_CHECK_EQUAL(pending(), "");
  demand(10);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(2, "http://a.test/x", "a.test", 1),
                                                    job(3, "http://b.test/y", "b.test", 1)}})));
  CAF_CHECK_EQUAL(pending(), "");
  auto p = progress();
  CAF_CHECK_EQUAL(p.fetched, 1);
  CAF_CHECK_EQUAL(p.in_flight, 2);
  CAF_CHECK_EQUAL(p.queued, 0);
  CAF_CHECK_EQUAL(p.seen, 3);
}

// Once a lease has ended, every further report of it is
// dropped: nothing persisted, counted, queued or leased again.
CAF_TEST(late_or_repeated_reports_are_ignored) {
  const std::string root = "http://a.test/";
  const auto leased = job(1, root, "a.test");
  start(site_settings(), {root});
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{leased}})));
  fetched({{leased, {DiscoveredLink{"http://a.test/x", "a.test"}}}});
  frontier_delta delta = added({FrontierEntry{2, "http://a.test/x", 1, root}});
  delta.done = {root};
  expect((frontier_delta), from(frontier).to(storage).with(equals(delta)));
  CAF_CHECK_EQUAL(pending(), "");

  // The same page again, with a link the first report did not have.
  fetched({{leased, {DiscoveredLink{"http://a.test/z", "a.test"}}}});
  CAF_CHECK_EQUAL(pending(), "");
  // A dead letter, a robots refusal and a give-back of the ended lease.
  deliver(dead_letter, frontier, url_failed{leased, "timeout"});
  CAF_CHECK_EQUAL(pending(), "");
  deliver(selector, frontier, url_refused{leased, "robots_txt"});
  CAF_CHECK_EQUAL(pending(), "");
  deliver(selector, frontier, leases_returned{{leased}});
  CAF_CHECK_EQUAL(pending(), "");

  auto p = progress();
  CAF_CHECK_EQUAL(p.stale_reports, 4);
  CAF_CHECK_EQUAL(p.fetched, 1);
  CAF_CHECK_EQUAL(p.failed, 0);
  CAF_CHECK_EQUAL(p.settled_total, 1);
  CAF_CHECK_EQUAL(p.in_flight, 0);
  CAF_CHECK_EQUAL(p.queued, 1);
  CAF_CHECK_EQUAL(p.seen, 2);
  // Only the link of the first report is leased; the root is not leased again.
  demand(10);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(2, "http://a.test/x", "a.test", 1)}})));
  CAF_CHECK_EQUAL(pending(), "");
}

// The race a lease epoch exists for: a worker is given up on and its URL
// leased again (attempt 2); the first worker's failure, sent before it was
// dropped, arrives after that. Matched by seq alone it would settle attempt
// 2 as failed and the re-fetch's links would be dropped; it is ignored and
// counted, and attempt 2 settles the URL with its links.
CAF_TEST(late_report_of_an_earlier_attempt_cannot_settle_the_new_lease) {
  start(site_settings(), {a1});
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test")}})));
  deliver(selector, frontier, leases_returned{{job(1, a1, "a.test")}});
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test", 0, 2)}})));
  CAF_CHECK_EQUAL(pending(), "");

  deliver(dead_letter, frontier, url_failed{job(1, a1, "a.test", 0, 1), "http_404"});
  CAF_CHECK_EQUAL(pending(), "");
  auto p = progress();
  CAF_CHECK_EQUAL(p.stale_reports, 1);
  CAF_CHECK_EQUAL(p.failed, 0);
  CAF_CHECK_EQUAL(p.in_flight, 1);

  fetched({{job(1, a1, "a.test", 0, 2), {DiscoveredLink{a2, "a.test"}}}});
  frontier_delta delta = added({FrontierEntry{2, a2, 1, a1}});
  delta.done = {a1};
  expect((frontier_delta), from(frontier).to(storage).with(equals(delta)));
  p = progress();
  CAF_CHECK_EQUAL(p.fetched, 1);
  CAF_CHECK_EQUAL(p.failed, 0);
  CAF_CHECK_EQUAL(p.queued, 1);
}

// A transient failure parks the URL (persisted as parked, with the reason)
// and ends the lease without budget; after the host backoff the URL is
// leased again, as its second attempt. A definite one settles it as failed.
CAF_TEST(transient_failures_park_until_the_host_backoff_runs_out) {
  auto settings = site_settings();
  settings.host_backoff = std::chrono::seconds{10};
  start(settings, {a1, a2});
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  deliver(dead_letter, frontier, url_failed{job(1, a1, "a.test"), "dns_failure"});
  frontier_delta parked;
  parked.parked = {FrontierRefusal{FrontierEntry{1, a1, 0, ""}, "dns_failure"}};
  expect((frontier_delta), from(frontier).to(storage).with(equals(parked)));
  demand(1);
  CAF_CHECK_EQUAL(pending(), "");  // nothing to lease until it is due
  // (progress() would let the test clock run: asked only after the timer.)
  CAF_REQUIRE(sched.has_pending_timeout());
  CAF_CHECK_GREATER_OR_EQUAL(next_timer_in(), caf::timespan{std::chrono::seconds{10}});
  CAF_REQUIRE(sched.trigger_timeout());
  expect((tick_atom), from(frontier).to(frontier));
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test", 0, 2)}})));
  auto p = progress();
  CAF_CHECK_EQUAL(p.parked, 0);
  CAF_CHECK_EQUAL(p.in_flight, 2);
  CAF_CHECK_EQUAL(p.settled_total, 0);  // no budget spent on the failure
  CAF_CHECK_EQUAL(p.failed, 0);

  // A definite answer is final.
  deliver(dead_letter, frontier, url_failed{job(2, a2, "a.test"), "http_410"});
  frontier_delta failed;
  failed.failed = {a2};
  expect((frontier_delta), from(frontier).to(storage).with(equals(failed)));
  CAF_CHECK_EQUAL(progress().failed, 1);
}

// Leases handed back are queued again, ahead of what was never
// leased, oldest first, and go out on the next demand.
CAF_TEST(returned_leases_go_out_again_first) {
  start(site_settings(), {a1, a2, b3});
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  deliver(selector, frontier, leases_returned{{job(2, a2, "a.test"), job(1, a1, "a.test")}});
  // Nothing to persist (the rows are still queued in the database) and
  // nothing owed.
  CAF_CHECK_EQUAL(pending(), "");
  auto p = progress();
  CAF_CHECK_EQUAL(p.in_flight, 0);
  CAF_CHECK_EQUAL(p.queued, 3);
  CAF_CHECK_EQUAL(p.settled_total, 0);
  demand(1);
  // Leased again: the rows' second attempts.
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test", 0, 2)}})));
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(2, a2, "a.test", 0, 2), job(3, b3, "b.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
}

// A lane's batch settles each of its pages in order, in one delta; a page
// whose lease has ended already is skipped and the rest are not, and every
// row goes on to Storage (checked in fetched()).
CAF_TEST(a_batch_settles_each_page_and_skips_an_ended_lease) {
  start(site_settings(), {a1, a2, b3});
  demand(3);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test"), job(3, b3, "b.test")}})));
  // a2's lease ends first (a dead letter), then a batch still carries it.
  deliver(dead_letter, frontier, url_failed{job(2, a2, "a.test"), "http_404"});
  frontier_delta failed;
  failed.failed = {a2};
  expect((frontier_delta), from(frontier).to(storage).with(equals(failed)));
  fetched({{job(1, a1, "a.test"), {DiscoveredLink{"http://a.test/x", "a.test"}}},
           {job(2, a2, "a.test"), {DiscoveredLink{"http://a.test/never", "a.test"}}},
           {job(3, b3, "b.test"), {DiscoveredLink{"http://b.test/y", "b.test"}}}});
  frontier_delta delta = added({FrontierEntry{4, "http://a.test/x", 1, a1}, FrontierEntry{5, "http://b.test/y", 1, b3}});
  delta.done = {a1, b3};
  expect((frontier_delta), from(frontier).to(storage).with(equals(delta)));
  auto p = progress();
  CAF_CHECK_EQUAL(p.fetched, 2);
  CAF_CHECK_EQUAL(p.failed, 1);
  CAF_CHECK_EQUAL(p.stale_reports, 1);
  CAF_CHECK_EQUAL(p.in_flight, 0);
  CAF_CHECK_EQUAL(p.queued, 2);
}

// A lane's batch that holds only leases it ended with dead letters (their
// fetch_failures went to the DeadLetter before it) stores nothing and
// settles nothing here; the HostSelector still hears that they left their
// node, and the dead letter settles each URL when it comes.
CAF_TEST(dead_lettered_leases_are_passed_on_to_the_host_selector) {
  start(site_settings(), {a1, a2});
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  fetched({}, {lease_ref{2, 1}});
  CAF_CHECK_EQUAL(pending(), "");
  fetched({{job(1, a1, "a.test"), {}}}, {lease_ref{2, 1}});
  auto p = progress();
  CAF_CHECK_EQUAL(p.fetched, 1);
  CAF_CHECK_EQUAL(p.in_flight, 1);  // a2's until its dead letter comes
}

// A batch from another process is input like any other: a followed link
// that names a link or a host its row lacks is not offered (the others
// are), and a lease that came without its row is queued again rather than
// settled with no page recorded.
CAF_TEST(a_malformed_batch_offers_what_it_names_and_loses_no_page) {
  start(site_settings(), {a1, a2});
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  PageRow row;
  row.url = a1;
  row.host_key = "a.test";
  row.links = {LinkRow{"http://a.test/x", false, true}};
  pages_fetched m;
  m.rows.push_back(row);
  m.pages.push_back(page_outlinks{job(1, a1, "a.test"),
                                  {FollowedLink{0, -1, "", ""}, FollowedLink{5, -1, "", ""},
                                   FollowedLink{0, 3, "", ""}, FollowedLink{-7, -1, "http://a.test/y", ""}}});
  m.pages.push_back(page_outlinks{job(2, a2, "a.test"), {}});
  deliver(processor, frontier, std::move(m));
  expect((store_pages), from(frontier).to(storage).with(rows_of({a1})));
  expect((pages_processed), from(frontier).to(selector));
  frontier_delta delta = added({FrontierEntry{3, "http://a.test/x", 1, a1}});
  delta.done = {a1};
  expect((frontier_delta), from(frontier).to(storage).with(equals(delta)));
  CAF_CHECK_EQUAL(pending(), "");
  auto p = progress();
  CAF_CHECK_EQUAL(p.fetched, 1);
  CAF_CHECK_EQUAL(p.in_flight, 0);
  CAF_CHECK_EQUAL(p.queued, 2);
  // The rowless lease goes out again first, as its second attempt.
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(2, a2, "a.test", 0, 2), job(3, "http://a.test/x", "a.test", 1)}})));
}

// The last lease settled with nothing queued ends the crawl.
CAF_TEST(finishes_when_queue_is_empty) {
  const std::string root = "http://a.test/";
  start(site_settings(), {root});
  demand(5);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, root, "a.test")}})));
  // Not over while the page is out.
  CAF_CHECK_EQUAL(pending(), "");
  fetched({{job(1, root, "a.test"), {}}});
  frontier_delta last;
  last.done = {root};
  expect_finish(last, "queue_empty");
}

// With max_pages = 1 the crawl ends after one page although
// URLs are still queued, and the second seed is never leased.
CAF_TEST(finishes_when_page_budget_is_spent) {
  auto settings = site_settings();
  settings.site.max_pages = 1;
  start(settings, {a1, a2});
  demand(5);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  // Its link is still recorded: the next run may continue from it.
  fetched({{job(1, a1, "a.test"), {DiscoveredLink{b3, "b.test"}}}});
  frontier_delta last = added({FrontierEntry{3, b3, 1, a1}});
  last.done = {a1};
  expect_finish(last, "max_pages");
}

// Max_in_flight caps the leases out whatever the demand; each
// settled lease makes room for one more, persisted before it goes out.
CAF_TEST(max_in_flight_bounds_leases) {
  auto settings = site_settings();
  settings.max_in_flight = 2;
  start(settings, {a1, a2, b3, b4});
  demand(10);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, a1, "a.test"), job(2, a2, "a.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(dead_letter, frontier, url_failed{job(1, a1, "a.test"), "http_404"});
  // The failure goes to Storage before the next lease goes out.
  CAF_CHECK_EQUAL(ready_order(), (std::vector<std::string>{"storage", "host_selector"}));
  frontier_delta failed;
  failed.failed = {a1};
  expect((frontier_delta), from(frontier).to(storage).with(equals(failed)));
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(3, b3, "b.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  fetched({{job(2, a2, "a.test"), {}}});
  frontier_delta done;
  done.done = {a2};
  expect((frontier_delta), from(frontier).to(storage).with(equals(done)));
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(4, b4, "b.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  auto p = progress();
  CAF_CHECK_EQUAL(p.in_flight, 2);
  CAF_CHECK_EQUAL(p.queued, 0);
}

// A store that falls behind holds back new leases: with
// max_unwritten_deltas frontier_deltas unwritten, demand stays owed until
// Storage reports it has written them (deltas_written).
CAF_TEST(unwritten_deltas_hold_back_leases) {
  auto settings = site_settings();
  settings.max_unwritten_deltas = 2;
  start(settings, {a1, a2, b3, b4});  // the seeds' rows: one delta unwritten
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test")}})));
  fetched({{job(1, a1, "a.test"), {}}});
  frontier_delta done;
  done.done = {a1};
  expect((frontier_delta), from(frontier).to(storage).with(equals(done)));
  // Two deltas unwritten: the demand is owed, not paid.
  demand(5);
  CAF_CHECK_EQUAL(pending(), "");
  CAF_CHECK(!has_mail(selector));
  // Storage wrote the first: one unwritten, room again.
  deliver(storage, frontier, deltas_written{1});
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(2, a2, "a.test"), job(3, b3, "b.test"), job(4, b4, "b.test")}})));
  CAF_CHECK_EQUAL(pending(), "");
  // A stale count (messages may cross) changes nothing.
  deliver(storage, frontier, deltas_written{0});
  CAF_CHECK_EQUAL(pending(), "");
}

// stop_crawl drains the selector, leases nothing more, and ends the crawl
// with the stop's reason once the last lease is settled.
CAF_TEST(stop_waits_for_leases_out) {
  start(site_settings(), {a1, a2});
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, a1, "a.test")}})));
  deliver(observer, frontier, stop_crawl{"signal"});
  expect((drain_atom), from(frontier).to(selector));
  // Not over while a1 is out, and no new lease for any demand.
  CAF_CHECK_EQUAL(pending(), "");
  demand(5);
  CAF_CHECK_EQUAL(pending(), "");
  fetched({{job(1, a1, "a.test"), {}}});
  frontier_delta last;
  last.done = {a1};
  expect_finish(last, "signal");
}

// Sitemaps: while the HostSelector has sitemap documents open the crawl is
// not over, even with nothing queued or leased; a sitemap's page URLs are
// queued at depth 1 with the sitemap as parent and their lastmod.
CAF_TEST(open_sitemaps_hold_the_end_and_their_urls_are_queued_at_depth_one) {
  start(site_settings(), {root});
  deliver(selector, frontier, sitemaps_open{1});
  CAF_CHECK_EQUAL(pending(), "");
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(1, root, "a.test")}})));
  fetched({{job(1, root, "a.test"), {}}});
  frontier_delta done_root;
  done_root.done = {root};
  expect((frontier_delta), from(frontier).to(storage).with(equals(done_root)));
  // Nothing queued, nothing leased: still no flush, no end.
  CAF_CHECK_EQUAL(pending(), "");
  CAF_CHECK(!has_mail(observer));
  deliver(selector, frontier, listing());
  expect((frontier_delta), from(frontier).to(storage)
                             .with(equals(added({FrontierEntry{2, listed, 1, sitemap, kLastmod}}))));
  deliver(selector, frontier, sitemaps_open{0});
  CAF_CHECK_EQUAL(pending(), "");
  demand(1);
  expect((crawl_batch), from(frontier).to(selector).with(equals(crawl_batch{{job(2, listed, "a.test", 1)}})));
  fetched({{job(2, listed, "a.test", 1), {}}});
  frontier_delta done_listed;
  done_listed.done = {listed};
  expect_finish(done_listed, "queue_empty");
}

// A resumed crawl may read a sitemap before the Frontier has its state
// back from Storage: the HostSelector fetches sitemaps an earlier run left
// due on its own. Their URLs wait for the resume and are offered then, not
// dropped (which would lose them: the sitemap is recorded as read).
CAF_TEST(sitemap_urls_that_arrive_before_the_resume_are_queued_after_it) {
  seed(site_settings(), {root});
  // Storage has not answered the resume yet when the sitemap's URLs come.
  deliver(selector, frontier, listing());
  deliver(selector, frontier, sitemaps_open{0});
  expect((resume_request), from(frontier).to(storage));
  expect((FrontierResume), from(storage).to(frontier));
  // The seed first, then the sitemap's URL at depth 1.
  expect((frontier_delta), from(frontier).to(storage)
                             .with(equals(added({FrontierEntry{1, root, 0, ""},
                                                 FrontierEntry{2, listed, 1, sitemap, kLastmod}}))));
  CAF_CHECK_EQUAL(pending(), "");
  demand(2);
  expect((crawl_batch), from(frontier).to(selector)
                          .with(equals(crawl_batch{{job(1, root, "a.test"), job(2, listed, "a.test", 1)}})));
  CAF_CHECK_EQUAL(pending(), "");
}

// Stopped while the resume is on its way: the crawl ends only after it
// came, with the seeds and the early sitemap's URLs written for the next run.
CAF_TEST(a_stop_during_the_resume_still_writes_the_early_sitemap_urls) {
  seed(site_settings(), {root});
  deliver(selector, frontier, listing());
  deliver(observer, frontier, stop_crawl{"signal"});
  expect((drain_atom), from(frontier).to(selector));
  CAF_CHECK(!has_mail(observer));
  expect((resume_request), from(frontier).to(storage));
  expect((FrontierResume), from(storage).to(frontier));
  expect_finish(added({FrontierEntry{1, root, 0, ""}, FrontierEntry{2, listed, 1, sitemap, kLastmod}}), "signal");
}

CAF_TEST_FIXTURE_SCOPE_END()
