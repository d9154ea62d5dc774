#include "actors/processor_actor.h"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "core/console_log.h"
#include "core/domain_link_filter.h"
#include "core/robots_directives.h"
#include "core/link_selection.h"
#include "core/page_processor.h"
#include "core/stage_times.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

struct processor_state {
  topology actors;
  ProcessorSettings settings;
  StageTimes times{"parse"};
  static inline const char* name = "ProcessorActor";
};

std::string redirect_chain_json(const fetch_result& r) {
  if (r.redirect_urls.empty())
    return {};
  nlohmann::json hops = nlohmann::json::array();
  for (std::size_t i = 0; i < r.redirect_urls.size(); ++i)
    hops.push_back({{"url", r.redirect_urls[i]}, {"status", i < r.redirect_statuses.size() ? r.redirect_statuses[i] : 0}});
  return hops.dump();
}

caf::behavior processor_actor(caf::stateful_actor<processor_state>* self, ProcessorSettings settings) {
  self->state.settings = std::move(settings);
  return {
    [self](topology& t) { self->state.actors = std::move(t); },
    [self](timings_atom) { return self->state.times; },
    [self](fetch_result& r) {
      auto& st = self->state;
      StageTimer timer(st.times, waited_us(r.sent_us));
      FetchedPage page{r.job.url, r.final_url.empty() ? r.job.url : r.final_url, r.job.depth, r.status_code,
                       r.content_type, r.charset, r.body, r.truncated};
      PageAnalysis analysis = st.settings.chain->run(page);
      RobotsDirectives robots;
      robots.nofollow = !analysis.follow_links;
      robots.noindex = analysis.noindex;
      if (!r.x_robots_tag.empty())
        read_x_robots_tag(r.x_robots_tag, st.settings.robots_token, robots);
      analysis.follow_links = !robots.nofollow;

      PageRow row;
      row.url = r.job.url;
      row.host_key = r.job.host_key;
      row.depth = r.job.depth;
      row.status_code = r.status_code;
      row.content_type = r.content_type;
      row.bytes = static_cast<std::int64_t>(r.body.size());
      row.fetch_ms = r.fetch_ms;
      row.fetched_at_ms = r.fetched_at_ms;
      row.final_url = page.final_url;
      row.redirect_chain = redirect_chain_json(r);
      row.truncated = r.truncated;
      row.attempts = r.attempts;
      row.robots_directives = robots.text();
      // noindex: the page is recorded (it was fetched, its links count) but
      // its text is not kept.
      if (!robots.noindex) {
        row.title = std::move(analysis.title);
        row.description = std::move(analysis.description);
      }

      page_links found{r.job, {}};
      // Links resolve against where the body came from: after a redirect,
      // that is the final URL, not the one that was asked for.
      if (auto base = Url::parse(page.final_url)) {
        SelectedLinks links = st.settings.domains
                                ? st.settings.domains->select(*base, analysis)
                                : select_links(*base, analysis, *st.settings.scope, st.settings.strip_query_params);
        row.links = std::move(links.all);
        row.link_host_keys = std::move(links.other_hosts);
        row.canonical_url = std::move(links.canonical);
        found.links = std::move(links.to_crawl);
        if (st.settings.domains)  // seed 004 section 8: a line per host crawled
          log_line(LogLevel::info, "fetched " + r.job.host_key + " (depth=" + std::to_string(r.job.depth) + ", " +
                                     std::to_string(found.links.size()) + " outbound links)");
      }
      const auto now = monotonic_us();
      found.sent_us = now;
      self->send(st.actors.storage, store_page{std::move(row), now});
      self->send(st.actors.frontier, std::move(found));
    },
  };
}

}  // namespace

caf::actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings) {
  return sys.spawn(processor_actor, std::move(settings));
}

}  // namespace actorcrawl
