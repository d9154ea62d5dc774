#include "actors/processor_actor.h"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "runtime/message_trace.h"
#include "core/run/console_log.h"
#include "core/crawl/domain_link_filter.h"
#include "core/web/robots_directives.h"
#include "core/crawl/link_selection.h"
#include "core/crawl/page_processor.h"
#include "core/run/stage_times.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

// One parser: the processor chain and link selection for the pages it is
// given. Its results go straight to Storage and the Frontier, page row first,
// so a page's links never reach the Frontier before the page is recorded.
struct lane_state {
  topology actors;
  ProcessorSettings settings;
  StageTimes times{"parse"};
  static inline const char* name = "ProcessorLane";
};

// The fan-in point: every fetch_result comes here and goes on to one of
// `lanes` parsers, so parsing uses every core while the topology keeps one
// ProcessorActor.
struct processor_state {
  ProcessorSettings settings;
  std::size_t lane_count = 1;
  std::vector<caf::actor> lanes;
  std::size_t next_lane = 0;
  std::vector<fetch_result> early;  // arrived before the topology (never, in practice)
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

caf::behavior processor_lane(traced_actor<lane_state>* self, ProcessorSettings settings, topology actors) {
  self->state.settings = std::move(settings);
  self->state.actors = std::move(actors);
  return {
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

void hand_to_lane(traced_actor<processor_state>* self, fetch_result&& r) {
  auto& st = self->state;
  if (st.lanes.empty()) {
    st.early.push_back(std::move(r));
    return;
  }
  self->send(st.lanes[st.next_lane++ % st.lanes.size()], std::move(r));
}

caf::behavior processor_actor(traced_actor<processor_state>* self, ProcessorSettings settings,
                              std::size_t lanes) {
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
    },
    [self](fetch_result& r) { hand_to_lane(self, std::move(r)); },
    // The lanes' times, summed.
    [self](timings_atom) -> caf::result<StageTimes> {
      auto& lanes = self->state.lanes;
      if (lanes.empty())
        return StageTimes{"parse"};
      auto rp = self->make_response_promise<StageTimes>();
      auto total = std::make_shared<StageTimes>(StageTimes{"parse"});
      auto remaining = std::make_shared<std::size_t>(lanes.size());
      for (const auto& lane : lanes) {
        auto settle = [rp, total, remaining]() mutable {
          if (--*remaining == 0)
            rp.deliver(*total);
        };
        self->request(lane, std::chrono::seconds{2}, timings_atom_v)
          .then([total, settle](StageTimes& s) mutable {
                  total->merge(s);
                  settle();
                },
                [settle](caf::error&) mutable { settle(); });
      }
      return rp;
    },
  };
}

}  // namespace

caf::actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings, std::size_t lanes) {
  return sys.spawn(processor_actor, std::move(settings), lanes);
}

}  // namespace actorcrawl
