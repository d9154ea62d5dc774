#include "actors/dead_letter_actor.h"

#include <caf/all.hpp>

#include "runtime/message_trace.h"
#include "core/run/console_log.h"
#include "core/web/url.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

struct dead_letter_state {
  topology actors;
  std::int64_t failures = 0;
  static inline const char* name = "DeadLetterActor";
};

caf::behavior dead_letter_actor(traced_actor<dead_letter_state>* self) {
  return {
    [self](topology& t) { self->state.actors = std::move(t); },
    [self](fetch_failure& f) {
      auto& st = self->state;
      ++st.failures;
      log_line(LogLevel::warn, "dead letter: " + f.job.url + " (" + f.reason + " after " +
                                 std::to_string(f.attempts) + " attempt" + (f.attempts == 1 ? "" : "s") + ")");
      DeadLetterRow row{f.job.url, f.job.depth, f.reason, f.detail, f.attempts, f.status_code, f.failed_at_ms};
      PageRow page;
      page.url = f.job.url;
      page.host_key = f.job.host_key;
      page.depth = f.job.depth;
      page.status_code = f.status_code;
      page.fetch_ms = f.fetch_ms;
      page.fetched_at_ms = f.failed_at_ms;
      page.error = f.reason;
      page.attempts = f.attempts;
      self->send(st.actors.storage, store_dead_letter{std::move(row)});
      self->send(st.actors.storage, store_page{std::move(page)});
      self->send(st.actors.frontier, url_failed{std::move(f.job), std::move(f.reason)});
    },
    [self](redrive_atom) {
      auto& st = self->state;
      self->request(st.actors.storage, caf::infinite, redrive_atom_v)
        .then([self](std::vector<DeadLetterRow>& rows) {
          redrive_urls msg;
          for (auto& r : rows) {
            auto url = Url::parse(r.url);
            if (url)
              msg.jobs.push_back(CrawlJob{0, url->str(), url->host_key(), r.depth});
          }
          log_line(LogLevel::info, "re-driving " + std::to_string(msg.jobs.size()) + " dead letters");
          self->send(self->state.actors.frontier, std::move(msg));
        });
    },
  };
}

}  // namespace

caf::actor spawn_dead_letter(caf::actor_system& sys) { return sys.spawn(dead_letter_actor); }

}  // namespace actorcrawl
