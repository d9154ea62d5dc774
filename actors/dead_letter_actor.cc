#include "actors/dead_letter_actor.h"

#include <caf/all.hpp>

#include "instrument/message_trace.h"
#include "core/report/console_log.h"
#include "core/crawl/transient_failure.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

struct dead_letter_state {
  topology actors;
  static inline const char* name = "DeadLetterActor";
};

dead_letter_actor::behavior_type dead_letter_behavior(traced_actor<dead_letter_state, dead_letter_actor>* self) {
  return {
    [self](topology& t) { self->state.actors = std::move(t); },
    [self](fetch_failure& f) {
      auto& st = self->state;
      const bool transient = is_transient_failure(f.reason);
      log_line(LogLevel::warn, std::string{transient ? "parked" : "dead letter"} + ": " + f.job.url + " (" + f.reason +
                                 " after " + std::to_string(f.attempts) + " attempt" + (f.attempts == 1 ? "" : "s") +
                                 ")");
      PageRow page;
      page.url = f.job.url;
      page.host_key = f.job.host_key;
      page.depth = f.job.depth;
      page.status_code = f.status_code;
      page.fetch_ms = f.fetch_ms;
      page.fetched_at_ms = f.failed_at_ms;
      page.error = f.reason;
      page.attempts = f.attempts;
      // A parked URL is tried again (transient_failure.h): only a definite
      // failure is a letter to re-drive by hand.
      if (!transient)
        self->send(st.actors.storage, store_dead_letter{DeadLetterRow{f.job.url, f.job.depth, f.reason, f.detail,
                                                                      f.attempts, f.status_code, f.failed_at_ms}});
      self->send(st.actors.storage, store_pages{{std::move(page)}});
      self->send(st.actors.frontier, url_failed{std::move(f.job), std::move(f.reason)});
    },
  };
}

}  // namespace

dead_letter_actor spawn_dead_letter(caf::actor_system& sys) { return sys.spawn(dead_letter_behavior); }

}  // namespace actorcrawl
