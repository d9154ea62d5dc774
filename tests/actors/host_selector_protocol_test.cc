// The HostSelectorActor's protocol, message by message: workers register by
// request and are watched, work is asked of the Frontier by the buffer rule,
// jobs go to workers one host at a time, leases of a lost worker go back
// once, a drain returns what waits, and a host's politeness delay holds its
// next job behind a timer.
//
// The actor runs on CAF's deterministic test scheduler; the Frontier,
// Storage and the FetchWorkers are stand-ins whose mailboxes the tests read.
#define CAF_SUITE host_selector_protocol

#include <limits>

#include "actors/host_selector_actor.h"

#include "protocol_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using namespace std::chrono_literals;

namespace {

const CrawlJob a1 = job(1, "http://a.test/1", "a.test");
const CrawlJob a2 = job(2, "http://a.test/2", "a.test");
const CrawlJob b1 = job(3, "http://b.test/1", "b.test");

// Delay 0 and robots.txt ignored: a job goes out as soon as its host has no
// request in flight (max_connections_per_host = 1).
HostScheduler::Settings impolite() {
  HostScheduler::Settings s;
  s.delay = 0ms;
  s.respect_robots = false;
  s.max_connections_per_host = 1;
  return s;
}

// A worker's round that ended one lease.
fetches_done done(const CrawlJob& j, bool returned = false, bool to_processor = false) {
  return fetches_done{{fetch_done{j, returned, 0, 12, to_processor}}};
}

struct host_selector_fixture : protocol_fixture {
  caf::actor frontier = spawn_as("frontier", sink_stub);
  caf::actor storage = spawn_as("storage", sink_stub);
  caf::actor processor = spawn_as("processor", sink_stub);
  caf::actor dead_letter = spawn_as("dead_letter", sink_stub);
  caf::actor coordinator = spawn_as("coordinator", sink_stub);  // sends the topology
  caf::actor selector;
  topology topo;
  fetch_settings fetch;

  host_selector_fixture() {
    fetch.user_agent = "actorcrawl-test/1.0";
    fetch.request_timeout_ms = 2500;
    fetch.politeness_delay_ms = 0;
    fetch.resolve = {"a.test:80:127.0.0.1"};
    run();  // the stand-ins start
  }

  // Wires the selector. With no worker the buffer target is its floor, 1024
  // URLs, and all of it is missing: it asks for all of it at once.
  void start(HostScheduler::Settings politeness) {
    selector = named(spawn_host_selector(sys, politeness, fetch), "host_selector");
    topo = roster(frontier, selector, processor, storage, dead_letter);
    deliver(coordinator, selector, topo);
    expect((work_demand), from(selector).to(frontier).with(equals(work_demand{1024})));
    CAF_CHECK_EQUAL(pending(), "");
  }

  // start() with sitemaps on and robots.txt obeyed, Storage a stand-in
  // that answers (returned): the selector asks it which sitemaps earlier
  // runs read, and it answers none.
  caf::actor start_with_sitemaps() {
    auto politeness = impolite();
    politeness.respect_robots = true;
    SitemapSettings sitemaps;
    sitemaps.enabled = true;
    auto history = spawn_as("storage", storage_stub);
    run();
    selector = named(spawn_host_selector(sys, politeness, fetch, sitemaps), "host_selector");
    topo = roster(frontier, selector, processor, history, dead_letter);
    deliver(coordinator, selector, topo);
    expect((load_sitemaps), from(selector).to(history));
    expect((work_demand), from(selector).to(frontier).with(equals(work_demand{1024})));
    expect((sitemap_history), from(history).to(selector));
    return history;
  }

  // A worker sends its hello; what the selector answers is left to the test
  // (jobs waiting for a worker reach it before the welcome).
  caf::actor hello(const std::string& name, std::int32_t capacity) {
    auto worker = spawn_as(name, worker_stub, name, capacity);
    run();
    deliver(coordinator, worker, selector);
    expect((worker_hello), from(worker).to(selector).with(equals(worker_hello{caf::actor_cast<fetch_worker_actor>(worker), name, capacity})));
    return worker;
  }

  void expect_welcome(const caf::actor& worker) {
    expect((worker_welcome), from(selector).to(worker).with(equals(worker_welcome{topo, fetch})));
  }

  caf::actor add_worker(const std::string& name, std::int32_t capacity) {
    auto worker = hello(name, capacity);
    expect_welcome(worker);
    return worker;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(host_selector_protocol_tests, host_selector_fixture)

// A hello is answered with the crawl's topology and fetch
// settings, and more work is asked for only when the buffer rule says so.
CAF_TEST(registration_welcomes_and_sizes_demand) {
  start(impolite());
  add_worker("worker-1@test-node", 1);
  // One slot wants 4 URLs, below the floor: the 1024 asked for already cover it.
  CAF_CHECK_EQUAL(pending(), "");
  auto big = hello("worker-2@test-node", 400);
  // 401 slots want 4 x 401 = 1604 URLs; 1024 are owed, and the 580 missing
  // are more than a quarter of the target, so they are asked for.
  expect((work_demand), from(selector).to(frontier).with(equals(work_demand{580})));
  expect_welcome(big);
  CAF_CHECK_EQUAL(pending(), "");
}

// With politeness off, jobs go out at once, but never more than
// one per host at a time: the host's next job waits for its fetch_done.
CAF_TEST(dispatch_one_request_per_host) {
  start(impolite());
  auto worker = add_worker("worker-1@test-node", 4);
  deliver(frontier, selector, crawl_batch{{a1, a2, b1}});
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1, b1})));
  CAF_CHECK_EQUAL(pending(), "");
  CAF_CHECK(!sched.has_pending_timeout());
  // Another host's completion does not release a.test's next job.
  deliver(worker, selector, done(b1));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(worker, selector, done(a1));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a2})));
  CAF_CHECK_EQUAL(pending(), "");
  CAF_CHECK(!sched.has_pending_timeout());
}

// When a worker's actor dies, the jobs it held go back to the
// Frontier, once; a job still queued for its host goes to the next worker.
CAF_TEST(lost_worker_returns_its_leases_once) {
  start(impolite());
  auto worker = add_worker("worker-1@test-node", 2);
  deliver(frontier, selector, crawl_batch{{a1, b1, a2}});
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1, b1})));
  CAF_CHECK_EQUAL(pending(), "");
  caf::anon_send_exit(worker, caf::exit_reason::kill);
  expect((caf::exit_msg), from(_).to(worker));
  // The selector monitors its workers: it hears of the death.
  expect((caf::down_msg), from(_).to(selector));
  expect((leases_returned), from(selector).to(frontier).with(returned({a1, b1})));
  // a2 was never leased: it waits in the selector for a worker.
  CAF_CHECK_EQUAL(pending(), "");
  // A report of the dead worker that crossed its death in the mail: the
  // lease already went back, so it does not go back again.
  deliver(worker, selector, done(a1, true));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(worker, selector, done(b1));
  CAF_CHECK_EQUAL(pending(), "");
  auto next = hello("worker-2@test-node", 2);
  // The waiting job reaches the new worker before the answer to its hello:
  // a worker must take fetch_jobs while it waits for worker_welcome.
  expect((fetch_jobs), from(selector).to(next).with(fetch_of({a2})));
  expect_welcome(next);
  CAF_CHECK_EQUAL(pending(), "");
}

// A page whose fetch ended but whose Processor (on the worker's node) had
// not reported it when the worker died goes back with the worker's leases;
// one the Processor reported, before or after its fetch_done, does not.
CAF_TEST(lost_worker_returns_pages_its_processor_had_not_reported) {
  start(impolite());
  auto worker = add_worker("worker-1@node-b", 4);
  deliver(frontier, selector, crawl_batch{{a1, a2, b1}});
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1, b1})));
  // a1: fetched, to the Processor, not yet reported. b1: reported first
  // (the Processor's lane was quicker than the worker's fetch_done).
  deliver(worker, selector, done(a1, false, true));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a2})));
  deliver(processor, selector, pages_processed{{lease_ref{b1.seq, b1.attempt}}});
  deliver(worker, selector, done(b1, false, true));
  CAF_CHECK_EQUAL(pending(), "");
  caf::anon_send_exit(worker, caf::exit_reason::kill);
  expect((caf::exit_msg), from(_).to(worker));
  expect((caf::down_msg), from(_).to(selector));
  // a2 was out; a1 was fetched and never processed: both go back.
  expect((leases_returned), from(selector).to(frontier).with(returned({a2, a1})));
  CAF_CHECK_EQUAL(pending(), "");
}

// A drain returns every queued job, tells the workers, and
// sends back any batch still on its way; leases out end as usual.
CAF_TEST(drain_returns_queued_jobs_and_drains_workers) {
  start(impolite());
  auto worker = add_worker("worker-1@test-node", 1);
  deliver(frontier, selector, crawl_batch{{a1, a2, b1}});
  // One slot: a1 is out, a2 and b1 wait.
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1})));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(frontier, selector, drain_atom_v);
  expect((leases_returned), from(selector).to(frontier).with(returned({a2, b1})));
  expect((drain_atom), from(selector).to(worker));
  CAF_CHECK_EQUAL(pending(), "");
  // A batch that crossed the drain goes straight back.
  const auto late = job(4, "http://c.test/", "c.test");
  deliver(frontier, selector, crawl_batch{{late}});
  expect((leases_returned), from(selector).to(frontier).with(returned({late})));
  CAF_CHECK_EQUAL(pending(), "");
  // The lease out ends normally; nothing is dispatched or asked for.
  deliver(worker, selector, done(a1));
  CAF_CHECK_EQUAL(pending(), "");
  // A worker joining after the drain is drained at once.
  auto next = hello("worker-2@test-node", 1);
  expect((drain_atom), from(selector).to(next));
  expect_welcome(next);
  CAF_CHECK_EQUAL(pending(), "");
}

// With a 1 s delay a host's next job waits behind a timer set when the
// previous one completes; other hosts do not wait for it. The selector reads
// time from its actor clock, which the test scheduler moves to the timer's
// moment when it triggers it: no real time passes.
CAF_TEST(politeness_delay_holds_next_job_for_timer) {
  auto politeness = impolite();
  politeness.delay = 1000ms;
  start(politeness);
  auto worker = add_worker("worker-1@test-node", 2);
  deliver(frontier, selector, crawl_batch{{a1, a2, b1}});
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1, b1})));
  CAF_CHECK_EQUAL(pending(), "");
  // a2 waits for a1 to end, not yet for a clock: no timer.
  CAF_CHECK(!sched.has_pending_timeout());

  deliver(worker, selector, done(a1));
  // a.test's clock now runs for 1 s: a2 stays, and one timer is set for
  // the moment it runs out (plus half a millisecond of slack).
  CAF_CHECK_EQUAL(pending(), "");
  CAF_REQUIRE(sched.has_pending_timeout());
  CAF_CHECK_EQUAL(sched.clock().schedule().size(), 1u);
  CAF_CHECK_GREATER(next_timer_in(), caf::timespan{999ms});
  CAF_CHECK_LESS_OR_EQUAL(next_timer_in(), caf::timespan{1001ms});

  // The test clock jumps to the timer's moment: the tick lets a2 go, and
  // no further timer is needed.
  CAF_REQUIRE(sched.trigger_timeout());
  expect((tick_atom), from(selector).to(selector));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a2})));
  CAF_CHECK_EQUAL(pending(), "");
  CAF_CHECK(!sched.has_pending_timeout());
}

// With robots.txt respected, a host's first request is for its robots.txt;
// its jobs wait for the answer, which is stored, and then go out or are
// refused by its rules.
CAF_TEST(robots_txt_gates_first_request) {
  auto politeness = impolite();
  politeness.respect_robots = true;
  start(politeness);
  auto worker = add_worker("worker-1@test-node", 2);
  const auto secret = job(1, "http://a.test/private/1", "a.test");
  const auto open = job(2, "http://a.test/public/1", "a.test");
  deliver(frontier, selector, crawl_batch{{secret, open}});
  expect((robots_fetch), from(selector).to(worker).with(equals(robots_fetch{"a.test", "http://a.test/robots.txt"})));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(worker, selector,
          robots_result{"a.test", "http://a.test/robots.txt", 200, "User-agent: *\nDisallow: /private/\n", "", 7});
  expect((store_robots), from(selector).to(storage)
                           .with(where<store_robots>("store_robots(a.test, 200, parsed)", [](const store_robots& x) {
                             return x.record.host_key == "a.test" && x.record.status_code == 200 &&
                                    x.record.outcome == "parsed";
                           })));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({open})));
  expect((url_refused), from(selector).to(frontier).with(equals(url_refused{secret, "robots_txt"})));
  CAF_CHECK_EQUAL(pending(), "");
}

// Sitemaps: the ones robots.txt names are leased under their host like
// pages (after its robots.txt, one request at a time, refused by its
// rules), the Frontier hears how many are open before any URL of the host
// can end, and a document's page URLs reach it before the count drops.
CAF_TEST(robots_txt_sitemaps_are_scheduled_like_pages) {
  auto history = start_with_sitemaps();
  // The first count, though nothing is open: a Frontier with nothing else
  // to do waits for it (FrontierSettings::await_sitemaps).
  expect((sitemaps_open), from(selector).to(frontier).with(equals(sitemaps_open{0})));
  CAF_CHECK_EQUAL(pending(), "");
  auto worker = add_worker("worker-1@test-node", 2);
  deliver(frontier, selector, crawl_batch{{a1}});
  expect((robots_fetch), from(selector).to(worker));
  deliver(worker, selector,
          robots_result{"a.test", "http://a.test/robots.txt", 200,
                        "User-agent: *\nDisallow: /private/\nSitemap: http://a.test/s.xml\n"
                        "Sitemap: http://a.test/private/s.xml\n",
                        "", 7});
  expect((sitemaps_open), from(selector).to(frontier).with(equals(sitemaps_open{2})));
  expect((store_robots), from(selector).to(history));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1})));
  CAF_CHECK_EQUAL(pending(), "");
  // The host's next request is the sitemap: one at a time.
  deliver(worker, selector, done(a1));
  const auto first = CrawlJob{kSitemapSeqBit | 1, "http://a.test/s.xml", "a.test", 0, 1};
  expect((sitemap_fetch), from(selector).to(worker).with(where<sitemap_fetch>("sitemap_fetch(s.xml)", [&](const sitemap_fetch& f) {
           return caf::deep_to_string(f.job) == caf::deep_to_string(first) && !f.grants.empty();
         })));
  CAF_CHECK_EQUAL(pending(), "");
  // After it, robots.txt refuses the other: an outcome, no request.
  deliver(worker, selector, fetches_done{{fetch_done{first, false, 0, 3}}});
  expect((store_sitemap), from(selector).to(history).with(where<store_sitemap>("refused private/s.xml", [](const store_sitemap& m) {
           return m.rows.size() == 1 && m.rows[0].url == "http://a.test/private/s.xml" && m.rows[0].status == "refused" &&
                  m.rows[0].reason == "robots_txt";
         })));
  expect((sitemaps_open), from(selector).to(frontier).with(equals(sitemaps_open{1})));
  CAF_CHECK_EQUAL(pending(), "");
  // The parse lane's answer: page URLs to the Frontier, then the outcome,
  // then the count.
  sitemap_parsed parsed;
  parsed.job = first;
  parsed.parse.report.kind = SitemapKind::urlset;
  parsed.parse.report.counts.urls_found = 2;
  parsed.parse.report.counts.urls_accepted = 2;
  parsed.parse.links = {SitemapLink{"http://a.test/p1", "", 86400000}, SitemapLink{"http://a.test/p2", "", 0}};
  deliver(processor, selector, parsed);
  expect((sitemap_links), from(selector).to(frontier).with(equals(sitemap_links{
           "http://a.test/s.xml", {SitemapLink{"http://a.test/p1", "a.test", 86400000}, SitemapLink{"http://a.test/p2", "a.test", 0}}})));
  expect((store_sitemap), from(selector).to(history).with(where<store_sitemap>("fetched s.xml", [](const store_sitemap& m) {
           return m.rows.size() == 1 && m.rows[0].status == "fetched" && m.rows[0].urls_accepted == 2;
         })));
  expect((sitemaps_open), from(selector).to(frontier).with(equals(sitemaps_open{0})));
  CAF_CHECK_EQUAL(pending(), "");
  // A second answer for the same document changes nothing.
  deliver(processor, selector, parsed);
  CAF_CHECK_EQUAL(pending(), "");
}

// A worker that dies holding a sitemap's lease: the document is not lost;
// it goes out again, as its next attempt, to the next worker.
CAF_TEST(a_sitemap_lost_with_its_worker_goes_out_again) {
  auto history = start_with_sitemaps();
  auto first = add_worker("worker-1@test-node", 1);
  deliver(frontier, selector, crawl_batch{{a1}});
  expect((robots_fetch), from(selector).to(first));
  deliver(first, selector,
          robots_result{"a.test", "http://a.test/robots.txt", 200, "User-agent: *\nSitemap: http://a.test/s.xml\n", "", 7});
  expect((sitemaps_open), from(selector).to(frontier).with(equals(sitemaps_open{1})));
  expect((store_robots), from(selector).to(history));
  expect((fetch_jobs), from(selector).to(first).with(fetch_of({a1})));
  deliver(first, selector, done(a1));
  const auto lease = CrawlJob{kSitemapSeqBit | 1, "http://a.test/s.xml", "a.test", 0, 1};
  expect((sitemap_fetch), from(selector).to(first).with(where<sitemap_fetch>("sitemap_fetch(s.xml, 1)", [&](const sitemap_fetch& f) {
           return caf::deep_to_string(f.job) == caf::deep_to_string(lease);
         })));
  CAF_CHECK_EQUAL(pending(), "");
  caf::anon_send_exit(first, caf::exit_reason::kill);
  expect((caf::exit_msg), from(_).to(first));
  expect((caf::down_msg), from(_).to(selector));
  // Nothing to the Frontier: no page lease was lost, and the document is
  // still open.
  CAF_CHECK_EQUAL(pending(), "");
  auto second = hello("worker-2@test-node", 1);
  auto again = lease;
  again.attempt = 2;
  expect((sitemap_fetch), from(selector).to(second).with(where<sitemap_fetch>("sitemap_fetch(s.xml, 2)", [&](const sitemap_fetch& f) {
           return caf::deep_to_string(f.job) == caf::deep_to_string(again);
         })));
  expect_welcome(second);
  CAF_CHECK_EQUAL(pending(), "");
}

// A worker's capacity comes from another process: an absurd one is held to
// what one worker can run, so the demand stays a positive int32.
CAF_TEST(announced_capacity_is_bounded) {
  start(impolite());
  auto huge = hello("worker-1@test-node", std::numeric_limits<std::int32_t>::max());
  // 4096 slots want 4 x 4096 = 16384 URLs; 1024 are owed already.
  expect((work_demand), from(selector).to(frontier).with(equals(work_demand{16384 - 1024})));
  expect_welcome(huge);
  CAF_CHECK_EQUAL(pending(), "");
}

// A hello repeated by the same worker (a retry after a lost reply) is
// welcomed again but does not add slots: a worker of capacity 1 still gets
// one job at a time.
CAF_TEST(repeated_hello_adds_no_phantom_worker) {
  start(impolite());
  auto worker = add_worker("worker-1@test-node", 1);
  deliver(coordinator, worker, selector);
  expect((worker_hello), from(worker).to(selector).with(equals(worker_hello{caf::actor_cast<fetch_worker_actor>(worker), "worker-1@test-node", 1})));
  expect_welcome(worker);
  CAF_CHECK_EQUAL(pending(), "");
  deliver(frontier, selector, crawl_batch{{a1, b1}});
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({a1})));
  CAF_CHECK_EQUAL(pending(), "");
  deliver(worker, selector, done(a1));
  expect((fetch_jobs), from(selector).to(worker).with(fetch_of({b1})));
  CAF_CHECK_EQUAL(pending(), "");
}

CAF_TEST_FIXTURE_SCOPE_END()
