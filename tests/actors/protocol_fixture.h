// Shared pieces of the actor protocol tests: an actor system on CAF's
// deterministic test scheduler (caf/test/dsl.hpp) with the message catalogue
// loaded, stand-ins for the actors around the one under test, and matchers
// for expect(...).with(...).
//
// A test drives the actor under test one message at a time: deliver() hands
// it a message as a neighbour would send it, expect() takes the next message
// out of a stand-in's mailbox and checks sender, type and content, and
// pending() lists whatever is still undelivered anywhere, so "and nothing
// else was sent" is a check of its own.
//
// Include this after defining CAF_SUITE. The protocol's headers come first:
// dsl.hpp defines function-like macros (expect, allow, ...) and a global `_`.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "messages/catalogue.h"

#include <caf/test/dsl.hpp>

namespace actorcrawl::testing {

struct protocol_config : caf::actor_system_config {
  protocol_config() {
    // Only the catalogue: the middleman that register_messages also loads
    // has no place on the test scheduler.
    add_message_types<caf::id_block::actorcrawl>();
  }
};

// -- matchers for expect(...).with(...) ---------------------------------------
//
// The protocol's structs have no operator==, and CAF's CAF_CHECK_EQUAL
// quietly fails for types that cannot be compared. A pattern compares what
// it is built to compare and prints the expectation when it does not hold.

template <class T>
struct pattern {
  std::string text;  // the expectation, as a failed check prints it
  std::function<bool(const T&)> matches;
};

template <class T>
bool operator==(const T& actual, const pattern<T>& expected) {
  return expected.matches(actual);
}

template <class T>
std::string to_string(const pattern<T>& x) {
  return x.text;
}

// Every field equal, nested ones included: compared as CAF's inspector
// spells them out, so a field added to a message is compared as well.
template <class T>
pattern<T> equals(T expected) {
  auto text = caf::deep_to_string(expected);
  return {text, [text](const T& actual) { return caf::deep_to_string(actual) == text; }};
}

// fetch_jobs of exactly these jobs, in this order, sent at any time
// (sent_us is the sender's clock).
inline pattern<fetch_jobs> fetch_of(std::vector<CrawlJob> jobs) {
  auto text = caf::deep_to_string(jobs);
  return {"fetch_jobs(" + text + ", _)",
          [text](const fetch_jobs& actual) { return caf::deep_to_string(actual.jobs) == text; }};
}

// leases_returned with exactly these jobs, in any order (the HostSelector
// collects them from hash maps).
inline pattern<leases_returned> returned(std::vector<CrawlJob> jobs) {
  auto by_seq = [](std::vector<CrawlJob> xs) {
    std::sort(xs.begin(), xs.end(), [](const CrawlJob& a, const CrawlJob& b) { return a.seq < b.seq; });
    return caf::deep_to_string(xs);
  };
  auto text = by_seq(std::move(jobs));
  return {"leases_returned(" + text + " in any order)",
          [text, by_seq](const leases_returned& actual) { return by_seq(actual.jobs) == text; }};
}

// A predicate, for messages that carry a timestamp.
template <class T>
pattern<T> where(std::string text, std::function<bool(const T&)> predicate) {
  return {std::move(text), std::move(predicate)};
}

// -- building blocks ----------------------------------------------------------

// A lease as the Frontier hands it out: the row's first attempt unless told.
inline CrawlJob job(std::uint64_t seq, std::string url, std::string host_key, std::int32_t depth = 0,
                    std::uint32_t attempt = 1) {
  return CrawlJob{seq, std::move(url), std::move(host_key), depth, attempt};
}

// The roster the actor under test is wired with. Its neighbours are
// stand-ins, dynamically typed, which take whatever comes: cast to the
// interfaces the roster holds.
inline topology roster(const caf::actor& frontier, const caf::actor& host_selector, const caf::actor& processor,
                       const caf::actor& storage, const caf::actor& dead_letter) {
  return topology{caf::actor_cast<frontier_actor>(frontier), caf::actor_cast<host_selector_actor>(host_selector),
                  caf::actor_cast<processor_actor>(processor), caf::actor_cast<storage_actor>(storage),
                  caf::actor_cast<dead_letter_actor>(dead_letter), "test-node"};
}

// -- stand-ins ----------------------------------------------------------------

// Takes every one-way message of the protocol and does nothing with it. The
// test reads a message (expect) before the stand-in takes it.
inline caf::behavior sink_stub(caf::event_based_actor*) {
  return {
    [](crawl_batch&) {},    [](work_demand&) {},  [](leases_returned&) {}, [](url_refused&) {},
    [](crawl_finished&) {}, [](fetch_jobs&) {},   [](robots_fetch&) {},    [](drain_atom) {},
    [](frontier_delta&) {}, [](store_robots&) {},
    [](sitemap_fetch&) {},  [](sitemap_links&) {}, [](sitemaps_open&) {}, [](store_sitemap&) {},
    [](pages_fetched&) {},  [](pages_processed&) {}, [](fetch_failure&) {},
  };
}

// Storage with an empty database: nothing to resume, nothing spilled, and
// every flush succeeds at once.
inline caf::behavior storage_stub(caf::event_based_actor*) {
  return {
    [](resume_request&) { return FrontierResume{}; },
    [](load_frontier&) { return frontier_rows{}; },
    [](flush_atom) { return ok_atom_v; },
    [](frontier_delta&) {},
    [](store_pages&) {},
    [](store_robots&) {},
    [](load_sitemaps&) { return sitemap_history{}; },
    [](store_sitemap&) {},
  };
}

// A FetchWorker that registers when it is told which selector to join (a
// message holding the selector's handle), the way the real one does: by a
// request, so that worker_welcome comes back as its response.
inline caf::behavior worker_stub(caf::event_based_actor* self, std::string name, std::int32_t capacity) {
  return {
    [self, name, capacity](caf::actor& selector) {
      self->request(selector, caf::infinite, worker_hello{caf::actor_cast<fetch_worker_actor>(self), name, capacity})
        .then([](worker_welcome&) {});
    },
    [](fetch_jobs&) {},
    [](robots_fetch&) {},
    [](sitemap_fetch&) {},
    [](drain_atom) {},
  };
}

// -- the fixture --------------------------------------------------------------

struct protocol_fixture : test_coordinator_fixture<protocol_config> {
  // Every actor of the test with its role, for messages about them; all of
  // them are killed at the end (the actors under test hold handles to
  // themselves in their topology, so they would never go away by themselves).
  std::vector<std::pair<caf::actor, std::string>> cast;

  ~protocol_fixture() override {
    for (auto& member : cast)
      caf::anon_send_exit(member.first, caf::exit_reason::kill);
    run();
  }

  template <class F, class... Ts>
  caf::actor spawn_as(std::string role, F fun, Ts&&... xs) {
    return named(sys.spawn(fun, std::forward<Ts>(xs)...), std::move(role));
  }

  caf::actor named(caf::actor who, std::string role) {
    cast.emplace_back(who, std::move(role));
    return who;
  }

  // An actor under test, spawned with its typed interface.
  template <class... Sigs>
  caf::actor named(caf::typed_actor<Sigs...> who, std::string role) {
    return named(caf::actor_cast<caf::actor>(who), std::move(role));
  }

  std::string role_of(const caf::abstract_actor* who) const {
    for (const auto& member : cast)
      if (caf::actor_cast<caf::abstract_actor*>(member.first) == who)
        return member.second;
    return "<unknown actor>";
  }

  // The actors with mail waiting, in the order they became ready, and the
  // first message of each: "" when everything sent has been taken.
  std::string pending() const {
    std::string out;
    for (auto* job : sched.jobs) {
      auto* who = dynamic_cast<caf::abstract_actor*>(job);
      if (who == nullptr)
        continue;
      auto* next = who->peek_at_next_mailbox_element();
      if (!out.empty())
        out += "; ";
      out += role_of(who) + " <- " + (next != nullptr ? caf::to_string(next->content()) : "(nothing)");
    }
    return out;
  }

  // The roles of the actors with mail waiting, in the order they became
  // ready. For actors that were idle, that is the order they were sent to.
  std::vector<std::string> ready_order() const {
    std::vector<std::string> out;
    for (auto* job : sched.jobs)
      if (auto* who = dynamic_cast<caf::abstract_actor*>(job))
        out.push_back(role_of(who));
    return out;
  }

  bool has_mail(const caf::actor& who) {
    return caf::actor_cast<caf::abstract_actor*>(who)->peek_at_next_mailbox_element() != nullptr;
  }

  // Sends `x` to `to` as `from` and lets `to` take it, and only it.
  template <class T>
  void deliver(const caf::actor& from, const caf::actor& to, T x) {
    caf::send_as(from, to, std::move(x));
    expect_clause<T>{sched}.from(from).to(to);
  }

  // Asks `whom` and lets everything run until the answer is in. (The
  // fixture's own request<T>() does not compile in 0.17.6: it calls an
  // undefined FAIL macro.)
  template <class T, class... Ts>
  T ask(const caf::actor& whom, Ts... xs) {
    auto answer = self->request(whom, caf::infinite, std::move(xs)...);
    run();
    T out;
    bool got = false;
    answer.receive(
      [&](T& x) {
        out = std::move(x);
        got = true;
      },
      [&](caf::error& err) { CAF_FAIL("request failed: " << sys.render(err)); });
    CAF_REQUIRE(got);
    return out;
  }

  // How far ahead of the test clock the earliest timer is due.
  caf::timespan next_timer_in() {
    const auto& timers = sched.clock().schedule();
    CAF_REQUIRE(!timers.empty());
    return timers.begin()->first - sched.clock().current_time;
  }
};

}  // namespace actorcrawl::testing
