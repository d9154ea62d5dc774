// The ProcessorActor's lanes and how their outcomes leave: a lane batches
// what it processed while more pages waited in its mailbox, up to 64 pages,
// and sends a batch as one pages_fetched to the Frontier: the pages' rows
// and leases, and the leases it ended with a dead letter (sent before it),
// which the Frontier passes on to the HostSelector (the order a worker
// node's loss depends on: docs/deployment.md).
//
// The actor runs on CAF's deterministic test scheduler with a real page
// pipeline (the default configuration); the Frontier and the HostSelector
// are stand-ins whose mailboxes the tests read.
#define CAF_SUITE processor_protocol

#include "actors/processor_actor.h"
#include "core/setup/crawl_setup.h"

#include "protocol_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;

namespace {

// A small HTML page at http://a.test/<seq> with one link, as a FetchWorker
// hands it on.
fetch_result page(std::uint64_t seq) {
  fetch_result r;
  r.job = job(seq, "http://a.test/" + std::to_string(seq), "a.test");
  r.status_code = 200;
  r.content_type = "text/html";
  r.body = "<html><head><title>page</title></head><body><a href=\"/next\">next</a></body></html>";
  return r;
}

// "<what> of 1 2 3": the expectation as a failed check prints it.
std::string listing(const char* what, const std::vector<std::uint64_t>& seqs) {
  std::string text = std::string{what} + " of";
  for (auto s : seqs)
    text += " " + std::to_string(s);
  return text;
}

// The rows and leases of these pages, in this order, and these leases
// ended with a dead letter.
pattern<pages_fetched> rows_of(std::vector<std::uint64_t> seqs, std::vector<std::uint64_t> dead = {}) {
  return where<pages_fetched>(listing("pages_fetched", seqs) + "; " + listing("dead letters", dead),
                              [seqs, dead](const pages_fetched& m) {
                                if (m.rows.size() != seqs.size() || m.pages.size() != seqs.size() ||
                                    m.dead_lettered.size() != dead.size())
                                  return false;
                                for (std::size_t i = 0; i < seqs.size(); ++i)
                                  if (m.pages[i].job.seq != seqs[i] ||
                                      m.rows[i].url != "http://a.test/" + std::to_string(seqs[i]))
                                    return false;
                                for (std::size_t i = 0; i < dead.size(); ++i)
                                  if (m.dead_lettered[i].seq != dead[i] || m.dead_lettered[i].attempt != 1)
                                    return false;
                                return true;
                              });
}

std::vector<std::uint64_t> seqs_from(std::uint64_t first, std::uint64_t count) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = first; s < first + count; ++s)
    out.push_back(s);
  return out;
}

struct processor_fixture : protocol_fixture {
  caf::actor frontier = spawn_as("frontier", sink_stub);
  caf::actor host_selector = spawn_as("host_selector", sink_stub);
  caf::actor storage = spawn_as("storage", sink_stub);
  caf::actor dead_letter = spawn_as("dead_letter", sink_stub);
  caf::actor coordinator = spawn_as("coordinator", sink_stub);  // sends the topology
  caf::actor processor;
  caf::actor lane;

  processor_fixture() { run(); }

  // One lane behind the processor.
  void start() {
    CrawlConfig config;
    config.seeds = {"http://a.test/"};
    ProcessorSettings settings{page_pipeline(config, check_crawl(config)), false, nullptr};
    processor = named(spawn_processor(sys, std::move(settings), 1), "processor");
    deliver(coordinator, processor, roster(frontier, host_selector, processor, storage, dead_letter));
    auto lanes = ask<std::vector<parse_lane_actor>>(processor, lanes_atom_v);
    CAF_REQUIRE_EQUAL(lanes.size(), 1u);
    lane = named(lanes[0], "lane");
  }

  // A fetched page reaches the lane through the processor, and the lane
  // takes it (and only it).
  void fetched(std::uint64_t seq) {
    queued(seq);
    expect((fetch_result), from(processor).to(lane));
  }

  // A fetched page waits in the lane's mailbox.
  void queued(std::uint64_t seq) { deliver(host_selector, processor, page(seq)); }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(processor_protocol_tests, processor_fixture)

// A page that finds the lane's mailbox empty leaves at once, its row and
// its lease to the Frontier in one message.
CAF_TEST(a_page_alone_leaves_at_once) {
  start();
  fetched(1);
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({1})));
  fetched(2);
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({2})));
  CAF_CHECK_EQUAL(pending(), "");
}

// Pages that wait in the lane's mailbox leave together, once the last of
// them is processed, in the order they came.
CAF_TEST(pages_that_wait_leave_as_one_batch) {
  start();
  for (std::uint64_t seq : {1, 2, 3})
    queued(seq);
  for (int i = 0; i < 3; ++i) {
    CAF_CHECK(!has_mail(frontier));
    expect((fetch_result), from(processor).to(lane));
  }
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({1, 2, 3})));
  CAF_CHECK_EQUAL(pending(), "");
}

// A redirect back to its own URL ends its lease with a dead letter, sent
// at once; its lease leaves in the batch, after the dead letter, with the
// pages processed beside it.
CAF_TEST(a_dead_lettered_lease_leaves_in_the_batch_after_its_dead_letter) {
  start();
  queued(1);
  fetch_result loop = page(2);
  loop.status_code = 301;
  loop.facts.location = loop.job.url;
  loop.body.clear();
  deliver(host_selector, processor, std::move(loop));
  queued(3);
  for (int i = 0; i < 3; ++i)
    expect((fetch_result), from(processor).to(lane));
  expect((fetch_failure), from(lane).to(dead_letter).with(where<fetch_failure>(
                                                            "a redirect loop", [](const fetch_failure& f) {
                                                              return f.job.seq == 2 && f.reason == "redirect_loop";
                                                            })));
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({1, 3}, {2})));
  CAF_CHECK_EQUAL(pending(), "");
}

// A batch is at most 64 pages: the 65th waiting page starts the next one.
CAF_TEST(a_batch_holds_at_most_64_pages) {
  start();
  const auto all = seqs_from(1, 65);
  for (auto seq : all)
    queued(seq);
  for (std::size_t i = 0; i < 64; ++i)
    expect((fetch_result), from(processor).to(lane));
  expect((pages_fetched), from(lane).to(frontier).with(rows_of(seqs_from(1, 64))));
  expect((fetch_result), from(processor).to(lane));
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({65})));
  CAF_CHECK_EQUAL(pending(), "");
}

// A node that stops asks its processor to flush: what a lane has processed
// leaves before the answer.
CAF_TEST(a_flush_sends_what_a_lane_holds_before_it_answers) {
  start();
  queued(1);
  queued(2);
  expect((fetch_result), from(processor).to(lane));
  // The flush waits behind the second page, which then finds it waiting:
  // the batch leaves with the flush, before the answer.
  auto answer = self->request(caf::actor_cast<caf::actor>(lane), caf::infinite, flush_atom_v);
  expect((fetch_result), from(processor).to(lane));
  CAF_CHECK(!has_mail(frontier));
  expect((flush_atom), to(lane));
  expect((pages_fetched), from(lane).to(frontier).with(rows_of({1, 2})));
  CAF_CHECK_EQUAL(pending(), "");
  run();
  bool ok = false;
  answer.receive([&](ok_atom) { ok = true; }, [&](caf::error& err) { CAF_FAIL(sys.render(err)); });
  CAF_CHECK(ok);
}

CAF_TEST_FIXTURE_SCOPE_END()
