#include "instrument/message_trace.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>

#include <caf/all.hpp>

#include "core/config/crawl_config.h"
#include "messages/catalogue.h"

namespace actorcrawl {

namespace {

std::atomic<TraceWriter*> trace_writer{nullptr};

struct ActorName {
  std::string role;
  std::string node;
};

std::mutex registry_mutex;
std::unordered_map<std::string, ActorName> registry;  // by to_string(actor_addr)

std::string key_of(const caf::actor_addr& a) { return caf::to_string(a); }

// "actorcrawl::fetch_jobs" -> "fetch_jobs",
// "std::vector<actorcrawl::FrontierEntry>" -> "std::vector<FrontierEntry>".
std::string short_name(const char* name) {
  std::string s = name;
  static const std::string ns = "actorcrawl::";
  for (auto at = s.find(ns); at != std::string::npos; at = s.find(ns, at))
    s.erase(at, ns.size());
  return s;
}

// The writer keeps the first TraceWriter::kMaxUrls and the count.
void add_url(TraceRecord& r, std::string_view url) { r.urls.emplace_back(url); }

template <class Jobs>
void add_jobs(TraceRecord& r, const Jobs& jobs) {
  for (const auto& j : jobs)
    add_url(r, j.url);
  r.fields["jobs"] = jobs.size();
}

// What each message type shows in the trace: its URLs and a few fields.
void describe(const CrawlJob& j, TraceRecord& r) {
  add_url(r, j.url);
  r.fields["seq"] = j.seq;
  r.fields["depth"] = j.depth;
  if (!j.fetch_url.empty()) {  // a redirect hop: the URL fetched now
    add_url(r, j.fetch_url);
    r.fields["hops"] = j.hop_urls.size();
  }
}
void describe(const crawl_seeds& m, TraceRecord& r) {
  for (const auto& u : m.urls)
    add_url(r, u);
}
void describe(const work_demand& m, TraceRecord& r) { r.fields["slots"] = m.slots; }
void describe(const crawl_batch& m, TraceRecord& r) { add_jobs(r, m.jobs); }
// One lease while a trace records (the HostSelector sends each alone then).
void describe(const fetch_jobs& m, TraceRecord& r) {
  if (m.jobs.size() == 1)
    describe(m.jobs.front(), r);
  else
    add_jobs(r, m.jobs);
}
void describe(const fetch_result& m, TraceRecord& r) {
  describe(m.job, r);
  r.fields["status"] = m.status_code;
  r.fields["bytes"] = m.body.size();
}
void describe(const follow_redirect& m, TraceRecord& r) { describe(m.job, r); }
void describe(const fetch_done& m, TraceRecord& r) {
  describe(m.job, r);
  if (m.returned)
    r.fields["returned"] = true;
}
// One lease while a trace records (the worker sends each at once then).
void describe(const fetches_done& m, TraceRecord& r) {
  if (m.done.size() == 1) {
    describe(m.done.front(), r);
    return;
  }
  for (const auto& d : m.done)
    add_url(r, d.job.url);
  r.fields["leases"] = m.done.size();
}
void describe(const fetch_failure& m, TraceRecord& r) {
  describe(m.job, r);
  r.fields["reason"] = m.reason;
}
// The page's URL, then the links it offers: a URL's journey starts at the
// pages_fetched that discovered it. A lane sends one page a message while a
// trace records; a batch (none, then) lists its pages, then their links.
void describe(const pages_fetched& m, TraceRecord& r) {
  std::size_t links = 0;
  if (m.pages.size() == 1) {
    describe(m.pages.front().job, r);
  } else {
    for (const auto& p : m.pages)
      add_url(r, p.job.url);
    r.fields["pages"] = m.pages.size();
  }
  for (std::size_t i = 0; i < m.pages.size() && i < m.rows.size(); ++i) {
    for (const auto& link : m.pages[i].links)
      if (auto target = followed_target(m.rows[i], link))
        add_url(r, target->url);
    links += m.pages[i].links.size();
  }
  r.fields["links"] = links;
}
void describe(const pages_processed& m, TraceRecord& r) {
  if (m.leases.size() == 1)
    r.fields["seq"] = m.leases.front().seq;
  else
    r.fields["pages"] = m.leases.size();
}
void describe(const url_failed& m, TraceRecord& r) {
  describe(m.job, r);
  r.fields["reason"] = m.reason;
}
void describe(const url_refused& m, TraceRecord& r) {
  describe(m.job, r);
  r.fields["reason"] = m.reason;
}
void describe(const leases_returned& m, TraceRecord& r) { add_jobs(r, m.jobs); }
void describe(const stop_crawl& m, TraceRecord& r) { r.fields["reason"] = m.reason; }
void describe(const crawl_finished& m, TraceRecord& r) { r.fields["reason"] = m.reason; }
void describe(const store_pages& m, TraceRecord& r) {
  std::size_t links = 0;
  for (const auto& page : m.pages) {
    add_url(r, page.url);
    links += page.links.size();
  }
  if (m.pages.size() == 1)
    r.fields["status"] = m.pages.front().status_code;
  else
    r.fields["pages"] = m.pages.size();
  r.fields["links"] = links;
}
void describe(const store_dead_letter& m, TraceRecord& r) {
  add_url(r, m.row.url);
  r.fields["reason"] = m.row.reason;
}
void describe(const frontier_delta& m, TraceRecord& r) {
  for (const auto& e : m.added)
    add_url(r, e.url);
  for (const auto& u : m.done)
    add_url(r, u);
  for (const auto& u : m.failed)
    add_url(r, u);
  for (const auto& e : m.requeued)
    add_url(r, e.url);
  for (const auto& p : m.parked)
    add_url(r, p.entry.url);
  r.fields["added"] = m.added.size();
  r.fields["done"] = m.done.size();
  r.fields["failed"] = m.failed.size();
  if (!m.refused.empty())
    r.fields["refused"] = m.refused.size();
  if (!m.parked.empty())
    r.fields["parked"] = m.parked.size();
  // Named, since a URL fetched already is fetched again for them (its
  // subtree, found closer to a seed, may now be allowed).
  if (!m.requeued.empty()) {
    auto& urls = r.fields["requeued"] = nlohmann::json::array();
    for (const auto& e : m.requeued)
      urls.push_back(e.url);
  }
}
void describe(const robots_fetch& m, TraceRecord& r) { add_url(r, m.url); }
void describe(const robots_result& m, TraceRecord& r) {
  add_url(r, m.url);
  r.fields["status"] = m.status_code;
}
void describe(const store_robots& m, TraceRecord& r) { add_url(r, m.record.url); }
void describe(const deltas_written& m, TraceRecord& r) { r.fields["count"] = m.count; }
void describe(const worker_hello& m, TraceRecord& r) {
  r.fields["name"] = m.name;
  r.fields["capacity"] = m.capacity;
}
void describe(const frontier_rows& m, TraceRecord& r) { r.fields["rows"] = m.rows.size(); }
// Sitemaps: the document's URL, and the page URLs it led to (so a URL's
// journey starts at the sitemap that named it).
void describe(const sitemap_fetch& m, TraceRecord& r) { add_url(r, m.job.url); }
void describe(const sitemap_parsed& m, TraceRecord& r) {
  add_url(r, m.job.url);
  r.fields["links"] = m.parse.links.size();
  r.fields["bytes"] = m.parse.report.bytes_in;
  if (!m.parse.failure.empty())
    r.fields["failure"] = m.parse.failure;
  if (!m.parse.cut_short.empty())
    r.fields["cut_short"] = m.parse.cut_short;
}
void describe(const sitemap_links& m, TraceRecord& r) {
  add_url(r, m.sitemap_url);
  for (const auto& link : m.links)
    add_url(r, link.url);
  r.fields["links"] = m.links.size();
}
void describe(const sitemaps_open& m, TraceRecord& r) { r.fields["count"] = m.count; }
void describe(const store_sitemap& m, TraceRecord& r) {
  for (const auto& row : m.rows) {
    add_url(r, row.url);
    r.fields["status"] = row.status;
    if (!row.reason.empty())
      r.fields["reason"] = row.reason;
  }
}
template <class T>
void describe(const T&, TraceRecord&) {}

template <class T>
bool try_describe(const caf::type_erased_tuple& content, TraceRecord& r, std::string label) {
  if (!content.match_elements<T>())
    return false;
  r.type = std::move(label);
  describe(content.get_as<T>(0), r);
  return true;
}

// Every type of the catalogue, by its catalogue name: a type added to the
// block is traced by name without being listed here (a describe() overload
// adds its URLs and fields).
template <caf::type_id_t... Is>
bool describe_catalogue_type(const caf::type_erased_tuple& content, TraceRecord& r,
                             std::integer_sequence<caf::type_id_t, Is...>) {
  using block = caf::id_block::actorcrawl;
  return (try_describe<typename caf::type_by_id<block::begin + Is>::type>(
            content, r, short_name(caf::type_name_by_id<block::begin + Is>::value)) ||
          ...);
}

void describe_content(const caf::type_erased_tuple& content, TraceRecord& r) {
  using block = caf::id_block::actorcrawl;
  if (content.size() == 1) {
    if (describe_catalogue_type(content, r, std::make_integer_sequence<caf::type_id_t, block::end - block::begin>{}))
      return;
    // Atoms travel as their value: the trace shows their text.
    if (content.match_elements<caf::atom_value>()) {
      r.type = caf::to_string(content.get_as<caf::atom_value>(0));
      return;
    }
    if (try_describe<caf::down_msg>(content, r, "down_msg") || try_describe<caf::exit_msg>(content, r, "exit_msg") ||
        try_describe<caf::error>(content, r, "error"))
      return;
  }
  // Anything else: CAF's own rendering, kept short.
  r.type = "other";
  auto text = content.stringify();
  if (text.size() > 200)
    text.resize(200);
  r.fields["content"] = text;
}

}  // namespace

TraceSession::TraceSession(const std::string& path, const std::string& node) {
  if (path.empty())
    return;
  writer_ = std::make_unique<TraceWriter>(path, node);
  set_active_trace(writer_.get());
}

std::unique_ptr<TraceSession> TraceSession::open(const std::string& path, const std::string& node) {
  try {
    return std::make_unique<TraceSession>(path, node);
  } catch (const TraceFileError& e) {
    throw ConfigError(e.what());
  }
}

TraceSession::~TraceSession() {
  if (!writer_)
    return;
  set_active_trace(nullptr);
  try {
    writer_->flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorcrawl: %s\n", e.what());
  }
}

TraceWriter* active_trace() noexcept { return trace_writer.load(std::memory_order_acquire); }

void set_active_trace(TraceWriter* writer) noexcept { trace_writer.store(writer, std::memory_order_release); }

void name_actor(const caf::actor_addr& who, std::string role, std::string node) {
  if (!who)
    return;
  std::lock_guard<std::mutex> lock{registry_mutex};
  registry[key_of(who)] = ActorName{std::move(role), std::move(node)};
}

std::string trace_role(const char* class_name, caf::actor_id id) {
  const std::string name = class_name == nullptr ? "actor" : class_name;
  if (name == "ProcessorLane")
    return "parse_lane/" + std::to_string(id);
  std::string base = name;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, "Actor") == 0)
    base.resize(base.size() - 5);
  // CamelCase -> snake_case
  std::string out;
  for (char c : base) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty())
        out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      out.push_back(c);
    }
  }
  return out.empty() ? "actor/" + std::to_string(id) : out;
}

void trace_delivery(TraceWriter& trace, const std::string& role, const caf::mailbox_element& x,
                    std::optional<std::int64_t> mailbox_us) {
  TraceRecord r;
  r.to = role;
  r.fields = nlohmann::json::object();
  if (x.sender) {
    const auto addr = caf::actor_cast<caf::actor_addr>(x.sender);
    std::lock_guard<std::mutex> lock{registry_mutex};
    if (auto it = registry.find(key_of(addr)); it != registry.end()) {
      r.from = it->second.role;
      r.from_node = it->second.node;
    } else {
      r.from = "actor/" + std::to_string(x.sender->id());
    }
  }
  if (x.mid.is_response())
    r.reply_to = x.mid.request_id().integer_value();
  else if (x.mid.is_request())
    r.request_id = x.mid.request_id().integer_value();
  r.mailbox_us = mailbox_us;
  describe_content(x.content(), r);
  trace.record(std::move(r));
}

}  // namespace actorcrawl
