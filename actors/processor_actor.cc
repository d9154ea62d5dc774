#include "actors/processor_actor.h"

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/report/console_log.h"
#include "core/page/page_pipeline.h"
#include "core/hosts/sitemap_reading.h"
#include "core/report/stage_times.h"
#include "core/store/node_bodies.h"
#include "core/store/store_error.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// A lane's outcomes go out in batches: what it processed while more pages
// waited in its mailbox, up to this many. Each message costs the receiver
// a mailbox hand-off, and from a worker node a message on the link (two
// socket reads, a deserialization and a thread's wake-up on the
// coordinator), so a batch is one message however many pages it holds. A
// batch never waits for pages to come: it leaves as soon as the mailbox is
// empty, so a page's outcome is never later than the lane's own backlog
// made it.
constexpr std::size_t kLaneBatchPages = 64;

// One parser: the processor chain and link selection for the pages it is
// given. Its results go to the Frontier, each page's row with the links it
// follows said by their place in the row, in one message: the Frontier
// hands the rows on to Storage and tells the HostSelector the pages left
// the node.
struct lane_state {
  topology actors;
  ProcessorSettings settings;
  StageTimes times{"parse"};
  bool stop_sent = false;  // a processor gave up, and the Frontier was told
  bool node_bodies_failed = false;  // the node's bodies file refused a write, and the log said so
  // The open batch: one row and one page_outlinks a page, and the leases
  // ended with a dead letter.
  pages_fetched fetched;
  static inline const char* name = "ProcessorLane";
};

using lane_ptr = traced_actor<lane_state, parse_lane_actor>*;

// On a worker node that keeps the bodies it fetched (bodies_dir), they are
// written there, and committed, before their rows leave: a row the
// coordinator records never names a body a crash of this node could lose.
// A file that refuses a write sends the bodies with the rows, as a node
// without bodies_dir does: they are kept either way.
void keep_bodies_on_node(lane_ptr self) {
  auto& st = self->state;
  if (!st.settings.node_bodies)
    return;
  try {
    st.settings.node_bodies->keep(st.fetched.rows);
  } catch (const StoreError& e) {
    if (!st.node_bodies_failed)
      log_line(LogLevel::warn,
               std::string{e.what()} + "; while it cannot, the bodies go to the coordinator with their pages");
    st.node_bodies_failed = true;
  }
}

bool batch_empty(const pages_fetched& batch) { return batch.pages.empty() && batch.dead_lettered.empty(); }

void flush_batch(lane_ptr self) {
  auto& st = self->state;
  if (batch_empty(st.fetched))
    return;
  if (!st.fetched.rows.empty())
    keep_bodies_on_node(self);
  st.fetched.sent_us = monotonic_us();
  self->send(st.actors.frontier, std::exchange(st.fetched, {}));
}

// After each message: the batch leaves when full, when nothing else waits
// in the lane's mailbox, and at once while a trace records, so that each
// message of the trace still tells one page's story (docs/tracing.md).
void after_message(lane_ptr self) {
  const auto& batch = self->state.fetched;
  if (batch_empty(batch))
    return;
  if (batch.pages.size() + batch.dead_lettered.size() >= kLaneBatchPages || active_trace() != nullptr ||
      self->mailbox().empty())
    flush_batch(self);
}

// A sitemap document as its FetchWorker read it: what came over the wire
// checked (a peer may send anything), its page URLs kept to the crawl's
// scope here, off the HostSelector's thread; then on to the HostSelector,
// whose walk decides what follows.
sitemap_parsed in_crawl_scope(const PagePipeline& pipeline, sitemap_parsed p) {
  SitemapReport& report = p.parse.report;
  if (static_cast<int>(report.kind) < 0 || report.kind > SitemapKind::text)
    report.kind = SitemapKind::unknown;
  if (static_cast<int>(report.error) < 0 || report.error > SitemapError::too_complex)
    report.error = SitemapError::malformed;
  p.parse.out_of_scope = 0;
  keep_in_crawl_scope(p.parse, [&](const Url& url) { return pipeline.admits(url); });
  return p;
}

// A fetched page: archived, then a redirect hop, a failed redirect (a dead
// letter) or a page, whose outcome joins the batch.
void take_page(lane_ptr self, fetch_result& r) {
  auto& st = self->state;
  StageTimer timer(st.times, waited_us(r.sent_us));
  // Every response is archived before anything is decided about it, so
  // redirect hops and redirects that fail are kept like pages.
  if (st.settings.pipeline->archives()) {
    HttpExchange exchange{r.job.target_url(), r.facts.fetched_at_ms, std::move(r.ip_address), std::move(r.request_head),
                          r.response_head, r.body, r.truncated};  // the head stays for the processors
    // A revisit of the stored page (never a hop: its URL is another).
    if (r.job.fetch_url.empty()) {
      exchange.not_modified = r.facts.not_modified;
      exchange.previous_digest = r.job.stored_digest;
    }
    st.settings.pipeline->archive(exchange);
  }
  const RedirectStep step = st.settings.pipeline->redirect_step(r.job, r.status_code, r.facts.location);
  if (step.kind == RedirectStep::Kind::follow) {
    self->send(st.actors.host_selector, follow_redirect{step.next});
    return;
  }
  if (step.kind == RedirectStep::Kind::failed) {
    self->send(st.actors.dead_letter, fetch_failure{r.job, step.reason, step.detail, r.status_code,
                                                    r.facts.attempts, r.facts.fetch_ms, r.facts.fetched_at_ms});
    st.fetched.dead_lettered.push_back(lease_ref{r.job.seq, r.job.attempt});
    return;
  }
  const FetchedPage page{r.job.url, r.final_url.empty() ? r.job.url : r.final_url, r.job.depth, r.status_code,
                         r.content_type, r.charset, r.body, r.truncated, r.response_head};
  ProcessedPage done = st.settings.pipeline->process(r.job, page, r.facts);
  if (!done.truncation_note.empty())
    log_line(LogLevel::warn, done.truncation_note);
  if (!st.stop_sent) {
    // A processor that can process no more pages (a plugin in a crash
    // loop) ends the crawl: gracefully, with its words as the error.
    if (std::string why = st.settings.pipeline->failed_for_good(); !why.empty()) {
      st.stop_sent = true;
      self->send(st.actors.frontier, stop_crawl{"processor_failed", std::move(why)});
    }
  }
  if (st.settings.log_each_page)
    log_line(LogLevel::info, "fetched " + r.job.host_key + " (depth=" + std::to_string(r.job.depth) + ", " +
                               std::to_string(done.to_crawl.size()) + " outbound links)");
  std::vector<FollowedLink> follow = followed_by_position(done.row, std::move(done.to_crawl));
  st.fetched.rows.push_back(std::move(done.row));
  st.fetched.pages.push_back(page_outlinks{std::move(r.job), std::move(follow)});
}

parse_lane_actor::behavior_type processor_lane(lane_ptr self, ProcessorSettings settings, topology actors) {
  self->state.settings = std::move(settings);
  self->state.actors = std::move(actors);
  // A lane told to stop (its node leaving) sends what it has processed
  // first: those pages are recorded, not leased again.
  self->set_exit_handler([self](caf::exit_msg& m) {
    flush_batch(self);
    self->quit(m.reason);
  });
  return {
    [self](timings_atom) {
      after_message(self);
      return self->state.times;
    },
    [self](flush_atom) {
      flush_batch(self);
      return ok_atom_v;
    },
    [self](archive_exchange& x) {
      self->state.settings.pipeline->archive(HttpExchange{std::move(x.url), x.fetched_at_ms,
                                                          std::move(x.ip_address), std::move(x.request_head),
                                                          std::move(x.response_head), x.body, x.truncated});
      after_message(self);
    },
    [self](sitemap_parsed& p) {
      auto& st = self->state;
      StageTimer timer(st.times);
      self->send(st.actors.host_selector, in_crawl_scope(*st.settings.pipeline, std::move(p)));
      after_message(self);
    },
    [self](fetch_result& r) {
      take_page(self, r);
      after_message(self);
    },
  };
}

// The fan-in point: every fetch_result comes here and goes on to one of
// `lanes` parsers, so parsing uses every core while the topology keeps one
// ProcessorActor.
struct processor_state {
  ProcessorSettings settings;
  std::size_t lane_count = 1;
  std::vector<parse_lane_actor> lanes;
  std::size_t next_lane = 0;
  std::vector<fetch_result> early;  // arrived before the topology (never, in practice)
  std::vector<sitemap_parsed> early_sitemaps;
  static inline const char* name = "ProcessorActor";
};

using processor_ptr = traced_actor<processor_state, processor_actor>*;

// Asks every lane `question`; `each` takes each answer, and `all` runs once
// every lane has answered or failed to (within `timeout`).
template <class Answer, class Question, class Timeout, class Each, class All>
void ask_every_lane(processor_ptr self, Question question, Timeout timeout, Each each, All all) {
  auto remaining = std::make_shared<std::size_t>(self->state.lanes.size());
  auto settle = [remaining, all]() mutable {
    if (--*remaining == 0)
      all();
  };
  for (const auto& lane : self->state.lanes)
    self->request(lane, timeout, question)
      .then(
        [each, settle](Answer& answer) mutable {
          each(answer);
          settle();
        },
        [settle](caf::error&) mutable { settle(); });
}

void hand_to_lane(processor_ptr self, fetch_result&& r) {
  auto& st = self->state;
  if (st.lanes.empty()) {
    st.early.push_back(std::move(r));
    return;
  }
  self->send(st.lanes[st.next_lane++ % st.lanes.size()], std::move(r));
}

processor_actor::behavior_type processor_behavior(processor_ptr self, ProcessorSettings settings, std::size_t lanes) {
  self->state.settings = std::move(settings);
  self->state.lane_count = std::max<std::size_t>(lanes, 1);
  return {
    [self](topology& t) {
      auto& st = self->state;
      if (!st.lanes.empty())
        return;
      // Linked: a lane that fails takes the processor down with it, which the
      // crawl notices, instead of silently losing a share of the pages.
      for (std::size_t i = 0; i < st.lane_count; ++i)
        st.lanes.push_back(self->spawn<caf::linked>(processor_lane, st.settings, t));
      for (auto& r : st.early)
        hand_to_lane(self, std::move(r));
      st.early.clear();
      for (auto& b : st.early_sitemaps)
        self->send(st.lanes[st.next_lane++ % st.lanes.size()], std::move(b));
      st.early_sitemaps.clear();
    },
    [self](fetch_result& r) { hand_to_lane(self, std::move(r)); },
    [self](sitemap_parsed& p) {
      auto& st = self->state;
      if (st.lanes.empty())
        st.early_sitemaps.push_back(std::move(p));
      else
        self->send(st.lanes[st.next_lane++ % st.lanes.size()], std::move(p));
    },
    [self](archive_exchange& x) {
      auto& st = self->state;
      if (!st.lanes.empty())
        self->send(st.lanes[st.next_lane++ % st.lanes.size()], std::move(x));
    },
    [self](lanes_atom) { return self->state.lanes; },
    // Handed on behind the pages already handed to each lane, so the
    // answer comes once every lane has processed and sent them.
    [self](flush_atom) -> caf::result<ok_atom> {
      if (self->state.lanes.empty())
        return ok_atom_v;
      auto rp = self->make_response_promise<ok_atom>();
      ask_every_lane<ok_atom>(self, flush_atom_v, caf::infinite, [](ok_atom) {},
                              [rp]() mutable { rp.deliver(ok_atom_v); });
      return rp;
    },
    // The lanes' times, summed.
    [self](timings_atom) -> caf::result<StageTimes> {
      if (self->state.lanes.empty())
        return StageTimes{"parse"};
      auto rp = self->make_response_promise<StageTimes>();
      auto total = std::make_shared<StageTimes>(StageTimes{"parse"});
      ask_every_lane<StageTimes>(self, timings_atom_v, std::chrono::seconds{2},
                                 [total](StageTimes& s) { total->merge(s); },
                                 [rp, total]() mutable { rp.deliver(*total); });
      return rp;
    },
  };
}

}  // namespace

processor_actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings, std::size_t lanes) {
  return sys.spawn(processor_behavior, std::move(settings), lanes);
}

}  // namespace actorcrawl
