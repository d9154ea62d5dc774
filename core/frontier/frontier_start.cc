#include "core/frontier/frontier_start.h"

#include <unordered_set>

#include "core/web/url.h"

namespace actorcrawl {

std::vector<SeedTarget> seed_targets(CrawlProfile profile, const std::vector<std::string>& seed_urls) {
  std::vector<SeedTarget> out;
  std::unordered_set<std::string> hosts;
  for (const auto& raw : seed_urls) {
    auto url = Url::parse(raw);
    if (!url)
      continue;
    switch (profile) {
      case CrawlProfile::site:
        out.push_back(SeedTarget{url->str(), url->host_key()});
        break;
      case CrawlProfile::domains:
        if (hosts.insert(url->host_key()).second)
          out.push_back(SeedTarget{url->scheme() + "://" + url->host_key() + "/", url->host_key()});
        break;
    }
  }
  return out;
}

ResumeQuery resume_query(const FrontierSettings& settings, const std::vector<SeedTarget>& seeds) {
  ResumeQuery q;
  q.profile = settings.profile;
  if (settings.profile == CrawlProfile::domains) {
    q.seed_host_key = seeds.empty() ? std::string{} : seeds.front().host_key;
    q.max_crawls_per_node = settings.domain.max_crawls_per_node;
  }
  return q;
}

StartedFrontier start_frontier(const FrontierSettings& settings, const FrontierResume& resume) {
  StartedFrontier out;
  switch (settings.profile) {
    case CrawlProfile::site: {
      const auto& state = resume.site;
      if (!state.seen.empty())
        out.note = "resuming: " + std::to_string(state.queued) + " URLs queued, " + std::to_string(state.settled) +
                   " already crawled";
      auto window = std::make_unique<FrontierWindow>(settings.site, settings.traps);
      window->resume(state);
      out.frontier = std::move(window);
      break;
    }
    case CrawlProfile::domains: {
      auto domains = std::make_unique<DomainFrontier>(settings.domain);
      if (domains->resume(resume.domains))
        out.note = "resuming: " + std::to_string(resume.domains.nodes.size()) +
                   " nodes below max_crawls_per_node queued again at depth 0";
      out.frontier = std::move(domains);
      break;
    }
  }
  return out;
}

}  // namespace actorcrawl
