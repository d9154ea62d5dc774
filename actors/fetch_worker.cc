#include "actors/fetch_worker.h"

#include <chrono>
#include <memory>
#include <unordered_map>

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/clock/clock.h"
#include "core/report/console_log.h"
#include "core/fetch/fetch_engine.h"
#include "core/fetch/http_date.h"
#include "core/fetch/request_rules.h"
#include "core/fetch/retry_policy.h"
#include "core/hosts/sitemap_reading.h"
#include "core/sitemap/sitemap_parser.h"
#include "core/web/robots_txt.h"
#include "core/report/stage_times.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// A blocking actor on a detached thread, because curl_multi_poll must own
// the thread while it waits. enqueue() wakes that wait, so a message is
// handled at once instead of at the next poll timeout.
class fetch_worker : public caf::blocking_actor {
 public:
  fetch_worker(caf::actor_config& cfg, host_selector_actor host_selector, std::string name, int capacity,
               processor_actor local_processor, std::shared_ptr<const CookieJar> cookies)
      : caf::blocking_actor(cfg), selector_(std::move(host_selector)), name_(std::move(name)),
        capacity_(capacity), local_processor_(std::move(local_processor)) {
    engine_.set_cookie_jar(std::move(cookies));
  }

  const char* name() const override { return "FetchWorker"; }

  void enqueue(caf::mailbox_element_ptr ptr, caf::execution_unit* eu) override {
    // A blocking actor has no consume() to hook: its messages are traced as
    // they arrive (so without a mailbox time).
    if (auto* trace = active_trace(); trace != nullptr && ptr != nullptr) {
      if (!traced_) {
        traced_ = true;
        name_actor(address(), role(), trace->node());
      }
      trace_delivery(*trace, role(), *ptr, std::nullopt);
    }
    caf::blocking_actor::enqueue(std::move(ptr), eu);
    engine_.wakeup();
  }

  void act() override {
    if (!join())
      return;
    while (running_) {
      drain_mailbox();
      send_done();  // leases a drain called off
      answer_if_left();
      if (!running_)
        break;
      // A round's fetch_dones leave together, after its results.
      for (auto& outcome : engine_.perform(std::chrono::milliseconds{1000}))
        settle(std::move(outcome));
      send_done();
      answer_if_left();
    }
  }

 private:
  struct InFlight {
    CrawlJob job;
    std::int32_t attempt = 1;
    std::int64_t first_started_us = 0;
    std::int64_t mailbox_wait_us = 0;
  };

  bool join() {
    bool joined = false;
    request(selector_, std::chrono::seconds{30}, worker_hello{caf::actor_cast<fetch_worker_actor>(this), name_, capacity_})
      .receive(
        [&](worker_welcome& w) {
          actors_ = std::move(w.actors);
          // Traces name the coordinator's actors, wherever they run.
          for_each_role(actors_, [&](const char* role, const auto& actor) {
            name_actor(actor.address(), role, actors_.node);
          });
          // On a worker node, pages go to the node's own Processor.
          if (local_processor_)
            actors_.processor = local_processor_;
          settings_ = std::move(w.settings);
          joined = true;
        },
        [&](caf::error& err) {
          // A crawl that ended at once (every seed refused) is gone before
          // its workers say hello: that is no error of theirs.
          if (err == caf::sec::request_receiver_down)
            log_line(LogLevel::info, name_ + ": the crawl ended before this worker joined it");
          else
            log_line(LogLevel::error, name_ + ": could not register with the host selector: " + to_string(err));
        });
    if (joined) {
      monitor(selector_);
      engine_.set_resolve(settings_.resolve);
      engine_.set_private_hosts_allowed(settings_.private_hosts_allowed);
      engine_.set_max_host_connections(settings_.max_connections_per_host);
      engine_.set_proxy(settings_.proxy, settings_.proxy_from_environment);
      // Checked where the crawl was set up (check_crawl); a node of another
      // build that cannot read them fetches nothing rather than without them.
      std::string error;
      request_rules_ = RequestRules::make(settings_.headers, settings_.auth, &error);
      if (!request_rules_) {
        log_line(LogLevel::error, name_ + ": " + error);
        return false;
      }
      policy_ = RetryPolicy{RetryPolicy::Settings{settings_.retry_attempts, settings_.retry_delay_ms,
                                                  settings_.request_timeout_ms, settings_.politeness_delay_ms}};
    }
    return joined;
  }

  void drain_mailbox() {
    bool more = true;
    while (more && running_) {
      receive(
        [&](fetch_jobs& m) {
          if (leaving_)
            return;  // never requested: the HostSelector returns a gone worker's leases
          const auto waited = waited_us(m.sent_us);
          for (auto& job : m.jobs)
            start(std::move(job), waited);
        },
        [&](flush_atom) {
          leaving_ = true;
          leave_answer_ = make_response_promise();
          call_off_retries();
        },
        [&](timings_atom) { return times_; },
        // Leaving, nothing new starts: a robots.txt or a sitemap this worker
        // never fetched goes to another when it goes, like its leases.
        [&](robots_fetch& r) {
          if (!leaving_)
            start_robots(std::move(r));
        },
        [&](sitemap_fetch& s) {
          if (!leaving_)
            start_sitemap(std::move(s));
        },
        [&](drain_atom) { call_off_retries(); },
        [&](caf::down_msg&) { running_ = false; },
        [&](caf::exit_msg& m) {
          running_ = false;
          fail_state(m.reason);
        },
        caf::after(std::chrono::seconds{0}) >> [&] { more = false; });
    }
  }

  // What every request of this worker has, from the crawl's fetch
  // settings; each kind of request sets its own time and size bounds.
  FetchRequest base_request(std::uint64_t token, std::string url) const {
    FetchRequest r;
    r.token = token;
    r.url = std::move(url);
    r.user_agent = settings_.user_agent;
    r.block_private_addresses = settings_.block_private_addresses;
    r.capture_http = settings_.capture_http;
    if (request_rules_ != nullptr && !request_rules_->empty())
      if (const auto parsed = Url::parse(r.url))
        request_rules_->apply(*parsed, r);
    return r;
  }

  FetchRequest request_for(const CrawlJob& job, std::int32_t attempt, std::uint64_t token) const {
    FetchRequest r = base_request(token, job.target_url());
    r.timeout_ms = policy_.timeout_for(attempt);
    r.max_body_bytes = settings_.max_body_bytes;
    // The crawler takes redirect hops itself, each scheduled like any URL
    // (the Processor decides, the HostSelector paces): curl follows none.
    r.max_redirects = 0;
    // A revisit asks conditionally, for the job's own URL only: a validator
    // belongs to the URL that sent it, never to a redirect hop.
    if (job.fetch_url.empty()) {
      r.if_none_match = job.etag;
      r.if_modified_since_ms = job.last_modified.empty() ? -1 : parse_http_date(job.last_modified);
    }
    return r;
  }

  void start(CrawlJob job, std::int64_t mailbox_wait_us) {
    auto token = job.seq;
    auto request = request_for(job, 1, token);
    inflight_[token] = InFlight{std::move(job), 1, monotonic_us(), mailbox_wait_us};
    engine_.start(std::move(request));
  }

  // robots.txt is tried once here: the HostSelector owns the decision to try
  // again (RFC 9309 2.3.1.3). The size and redirect limits are the RFC's.
  void start_robots(robots_fetch r) {
    FetchRequest req = base_request(kRobotsToken | next_robots_++, r.url);
    req.timeout_ms = settings_.request_timeout_ms;
    req.max_body_bytes = static_cast<std::int64_t>(RobotsRules::kMaxBodyBytes);
    req.max_redirects = RobotsRules::kMaxRedirects;
    robots_[req.token] = std::move(r);
    engine_.start(std::move(req));
  }

  // A sitemap document, tried once (its outcome is recorded; the next run
  // tries a failed one again), read as it streams in: each piece of the
  // body goes to its SitemapReading the moment it arrives (whatever its
  // Content-Encoding inflated it to), so no body is held here; the parser
  // stops at the protocol's 50 MiB, a gzip bomb, or a named error, and what
  // came before a reset or a timeout is kept. curl follows no redirect:
  // each request is scheduled by the HostSelector, so a redirect's target
  // is queued there as a document of its own.
  void start_sitemap(sitemap_fetch s) {
    // kSitemapSeqBit set: neither a page's seq nor a robots.txt token.
    FetchRequest req = base_request(s.job.seq, s.job.url);
    // A document of tens of megabytes needs longer than a page.
    req.timeout_ms = std::max<std::int64_t>(settings_.request_timeout_ms, kSitemapMinTimeoutMs);
    req.max_body_bytes = static_cast<std::int64_t>(SitemapParser::kMaxBytes) + 1;
    req.max_redirects = 0;
    SitemapScope scope;
    for (const auto& grant : s.grants)
      scope.allow(grant);
    auto reading = std::make_shared<SitemapReading>(std::move(scope));
    req.body_sink = [reading](int status, std::string_view piece) { return reading->feed(status, piece); };
    sitemaps_[req.token] = OpenSitemap{std::move(s), std::move(reading)};
    engine_.start(std::move(req));
  }

  // What it named goes to the Processor before fetch_done ends the lease
  // (as for pages): a worker dying between the two leaves a lease the
  // HostSelector schedules again, and the ledger keeps the first answer.
  void settle_sitemap(FetchOutcome outcome) {
    auto it = sitemaps_.find(outcome.token);
    if (it == sitemaps_.end())
      return;
    OpenSitemap open = std::move(it->second);
    sitemaps_.erase(it);
    SitemapResponse response;
    response.status_code = outcome.status_code;
    response.location = outcome.location;
    if (outcome.error != FetchError::none)
      response.error = to_string(outcome.error);
    else
      archive_only(outcome, open.fetch.job.url);
    send(actors_.processor, sitemap_parsed{open.fetch.job, open.reading->finish(response), outcome.elapsed_ms});
    ended(fetch_done{std::move(open.fetch.job), false, std::max<std::int64_t>(outcome.retry_after_ms, 0),
                     outcome.elapsed_ms, true});
  }

  // With capture_http: a response that will not reach the Processor as a
  // fetch_result (robots.txt, a 5xx or 429 to retry or given up on) still
  // goes to the archive.
  void archive_only(const FetchOutcome& outcome, const std::string& url) {
    if (!settings_.archive_responses || outcome.error != FetchError::none || outcome.response_head.empty())
      return;
    send(actors_.processor, archive_exchange{url, epoch_ms(), outcome.ip_address, outcome.request_head,
                                             outcome.response_head, outcome.body, outcome.truncated});
  }

  void settle_robots(FetchOutcome outcome) {
    auto it = robots_.find(outcome.token);
    if (it == robots_.end())
      return;
    robots_result r{std::move(it->second.host_key), std::move(it->second.url), 0, {}, {}, outcome.elapsed_ms};
    robots_.erase(it);
    if (outcome.error == FetchError::none) {
      // The archive keeps robots.txt too (as curl last fetched it, after
      // any redirect it followed): a copy, once per host.
      archive_only(outcome, outcome.final_url.empty() ? r.url : outcome.final_url);
      r.status_code = outcome.status_code;
      r.body = std::move(outcome.body);
    } else {
      r.error = to_string(outcome.error);
    }
    send(actors_.host_selector, std::move(r));
  }

  // Stopping: a URL waiting for its retry goes back to the Frontier rather
  // than hold the shutdown for a backoff that may be minutes long.
  void call_off_retries() {
    for (auto token : engine_.cancel_pending()) {
      auto it = inflight_.find(token);
      if (it == inflight_.end())
        continue;
      ended(fetch_done{std::move(it->second.job), true, 0, 0});
      inflight_.erase(it);
    }
  }

  void settle(FetchOutcome outcome) {
    if (outcome.token & kRobotsToken) {
      settle_robots(std::move(outcome));
      return;
    }
    if (is_sitemap_seq(outcome.token)) {
      settle_sitemap(std::move(outcome));
      return;
    }
    auto it = inflight_.find(outcome.token);
    if (it == inflight_.end())
      return;
    InFlight& f = it->second;
    RetryDecision d = policy_.decide(outcome, f.attempt);
    if (d.verdict != FetchVerdict::fetched)
      archive_only(outcome, f.job.target_url());
    const std::int64_t server_delay = std::max<std::int64_t>(outcome.retry_after_ms, 0);
    if (d.verdict == FetchVerdict::retry) {
      log_line(LogLevel::warn, name_ + " failed to fetch " + f.job.target_url() + " (" + d.reason + ", retry " +
                                 std::to_string(f.attempt) + "/" + std::to_string(settings_.retry_attempts) + ")");
      ++f.attempt;
      engine_.start_at(request_for(f.job, f.attempt, outcome.token), FetchEngine::Clock::now() + d.delay);
      return;
    }
    CrawlJob job = std::move(f.job);
    const std::int32_t attempts = f.attempt;
    // Busy time of a transfer is its wall time (transfers overlap), from the
    // first attempt to the outcome.
    times_.add(monotonic_us() - f.first_started_us, f.mailbox_wait_us);
    inflight_.erase(it);
    // The result goes before fetch_done. The HostSelector ends the lease on
    // fetch_done, and a worker that dies (or whose link drops) after it but
    // before the result would leave a lease nobody reports: the Frontier
    // would wait for it forever. With the result first, a worker dying
    // between the two only sends the lease back to the Frontier, whose
    // LeaseLedger keeps the first report. A redirect's next hop may then
    // reach the HostSelector before this fetch_done; it waits for it there.
    fetch_done done{job, false, server_delay, outcome.elapsed_ms};
    if (d.verdict == FetchVerdict::fetched) {
      done.to_processor = true;
      fetch_result r;
      r.job = job;
      r.status_code = outcome.status_code;
      r.content_type = std::move(outcome.content_type);
      r.charset = std::move(outcome.charset);
      r.body = std::move(outcome.body);
      r.truncated = outcome.truncated;
      r.final_url = std::move(outcome.final_url);
      r.facts = FetchFacts{outcome.elapsed_ms,
                           epoch_ms(),
                           attempts,
                           job.hop_urls,
                           job.hop_statuses,
                           std::move(outcome.x_robots_tag),
                           std::move(outcome.location),
                           std::move(outcome.etag),
                           std::move(outcome.last_modified),
                           outcome.not_modified};
      r.ip_address = std::move(outcome.ip_address);
      r.request_head = std::move(outcome.request_head);
      r.response_head = std::move(outcome.response_head);
      r.sent_us = monotonic_us();
      send(actors_.processor, std::move(r));
    } else {
      fetch_failure failure{job, d.reason, outcome.error_detail, outcome.status_code, attempts,
                            outcome.elapsed_ms, epoch_ms()};
      send(actors_.dead_letter, std::move(failure));
    }
    ended(std::move(done));
  }

  // A lease ended: its fetch_done waits for the round's others (one
  // message for all), but goes at once while a trace records, so that
  // each message of the trace tells one page's story.
  void ended(fetch_done done) {
    done_.done.push_back(std::move(done));
    if (active_trace() != nullptr)
      send_done();
  }

  // Leaving, and nothing under way: the results went before this answer.
  void answer_if_left() {
    if (leaving_ && inflight_.empty() && robots_.empty() && sitemaps_.empty() && leave_answer_.pending())
      leave_answer_.deliver(ok_atom_v);
  }

  void send_done() {
    if (!done_.done.empty())
      send(actors_.host_selector, std::exchange(done_, {}));
  }

  // "fetch_worker/worker-1" for "worker-1@node".
  std::string role() const { return "fetch_worker/" + name_.substr(0, name_.find('@')); }

  bool traced_ = false;
  host_selector_actor selector_;
  std::string name_;
  std::int32_t capacity_;
  processor_actor local_processor_;  // set on a worker node
  topology actors_;
  fetch_settings settings_;
  std::unique_ptr<RequestRules> request_rules_;  // from settings_, at join
  RetryPolicy policy_{RetryPolicy::Settings{}};
  FetchEngine engine_;
  // Tokens of robots.txt transfers carry the top bit; job seqs never do.
  static constexpr std::uint64_t kRobotsToken = 1ULL << 63;
  std::unordered_map<std::uint64_t, InFlight> inflight_;
  std::unordered_map<std::uint64_t, robots_fetch> robots_;
  // A sitemap being fetched, and its reading, which takes the body as it comes.
  struct OpenSitemap {
    sitemap_fetch fetch;
    std::shared_ptr<SitemapReading> reading;
  };
  std::unordered_map<std::uint64_t, OpenSitemap> sitemaps_;
  static constexpr std::int64_t kSitemapMinTimeoutMs = 60'000;
  StageTimes times_{"fetch"};
  fetches_done done_;  // this round's ended leases, not yet sent
  // Its node is leaving (flush_atom): nothing new starts, and the answer
  // goes once nothing is under way.
  bool leaving_ = false;
  caf::response_promise leave_answer_;
  std::uint64_t next_robots_ = 1;
  bool running_ = true;
};

}  // namespace

fetch_worker_actor spawn_fetch_worker(caf::actor_system& sys, host_selector_actor host_selector, std::string name,
                                      int capacity, processor_actor local_processor,
                                      std::shared_ptr<const CookieJar> cookies) {
  // Untyped only here: the handle it is known by is typed (interfaces.h).
  return caf::actor_cast<fetch_worker_actor>(sys.spawn<fetch_worker>(
    std::move(host_selector), std::move(name), capacity, std::move(local_processor), std::move(cookies)));
}

}  // namespace actorcrawl
