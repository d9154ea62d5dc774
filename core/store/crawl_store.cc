#include "core/store/crawl_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/clock/clock.h"
#include "core/crawl/page_change.h"
#include "core/store/crawl_schema.h"
#include "core/store/database_lock.h"
#include "core/store/sqlite_statements.h"
#include "core/store/write_batch.h"
#include "core/web/json_text.h"
#include "core/web/url_fingerprint.h"

namespace actorcrawl {
namespace {

// A frontier row as the Frontier takes it back (FrontierEntry): its own
// columns, then its page's validators and digest when that page was stored
// under the URL itself (no error, no redirect: they belong to another URL
// then): ACTORCRAWL_FRONTIER_ENTRY_COLUMNS over `frontier f` joined with
// ACTORCRAWL_PAGES_WITH_VALIDATORS as `p`; frontier_entry_of() reads them
// back, and what a statement selects after them starts at
// kFrontierEntryColumnCount.
#define ACTORCRAWL_FRONTIER_ENTRY_COLUMNS                                                     \
  "f.seq, f.url, f.depth, f.parent_url, CASE WHEN ok THEN p.etag END, "                      \
  "CASE WHEN ok THEN p.last_modified END, CASE WHEN ok THEN p.content_digest END"
#define ACTORCRAWL_PAGES_WITH_VALIDATORS                                                      \
  "(SELECT url, etag, last_modified, content_digest, revisit_interval_ms, fetched_at, "      \
  "COALESCE(error, '') = '' AND COALESCE(redirect_chain, '') = '' AS ok FROM pages)"
constexpr int kFrontierEntryColumnCount = 7;

FrontierEntry frontier_entry_of(SQLite::Statement& q) {
  FrontierEntry entry;
  entry.seq = q.getColumn(0).getInt64();
  entry.url = column_text(q.getColumn(1));
  entry.depth = q.getColumn(2).getInt();
  entry.parent_url = column_text(q.getColumn(3));
  entry.etag = column_text(q.getColumn(4));
  entry.last_modified = column_text(q.getColumn(5));
  entry.content_digest = column_text(q.getColumn(6));
  return entry;
}

// A row fetched and failed with a definite answer.
bool for_good_failure(int row_state) { return row_state == static_cast<int>(FrontierState::failed); }

// Host keys are few compared with pages, but a crawl of the open web can
// meet millions of them; past this size the cache starts over rather than
// growing without bound.
constexpr std::size_t kNodeCacheLimit = 100000;
// The same for the domain graph's edges, of which there can be many more:
// an entry is some 40 bytes, so the cache stays under about 10 MB.
constexpr std::size_t kEdgeCacheLimit = 250000;

// The path of an absolute URL without query or fragment; "" when the URL
// has none ("http://h" or "http://h?q"). Only the node-description rule needs
// it, so a full parse is not worth its cost here.
std::string_view url_path(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return {};
  const auto path_start = url.find_first_of("/?#", scheme_end + 3);
  if (path_start == std::string_view::npos)
    return {};
  const auto path_end = url.find_first_of("?#", path_start);
  return url.substr(path_start, path_end - path_start);
}

bool is_host_root(std::string_view url) {
  const auto path = url_path(url);
  return path.empty() || path == "/";
}

// The text a page contributes to its node: the title, or the meta
// description when the page has no title.
const std::string& node_description(const PageRow& page) {
  return page.title.empty() ? page.description : page.title;
}

}  // namespace

struct CrawlStore::Impl {
  Impl(const std::string& path_in, std::size_t batch_ops)
      : path(path_in), db(open_crawl_database(path)), batch(db, path, batch_ops, [this] {
          node_ids.clear();
          edge_ids.clear();
          crawled_in_call_count = 0;
          edges_in_call.clear();
        }) {
    batch.set_hooks(
      [this] {
        keep_call_nodes();
        keep_call_edges();
      },
      [this] {
        write_node_counts();
        write_edges();
      },
      [this] {
        node_counts.clear();
        edge_weights.clear();
        edge_index.clear();
      });
  }

  // Builds link_targets anew, in a transaction of its own. The sort behind
  // it may spill to temporary files there, not to memory (temp_store =
  // MEMORY would hold a copy of every link in RAM); temp_store can only
  // change outside a transaction.
  void build_targets(const char* operation) {
    try {
      batch.commit();
      link_to_host.reset();
      db.exec("PRAGMA temp_store = FILE");
      SQLite::Transaction build(db);
      build_link_targets(db, true);
      build.commit();
      db.exec("PRAGMA temp_store = MEMORY");
    } catch (const SQLite::Exception& e) {
      db.tryExec("PRAGMA temp_store = MEMORY");
      throw batch.failure(operation, e);
    }
  }

  // link_targets gone: it would be stale as soon as a page is written.
  void drop_targets(const char* operation) {
    try {
      batch.commit();
      link_to_host.reset();
      db.exec("DROP TABLE IF EXISTS link_targets");
    } catch (const SQLite::Exception& e) {
      throw batch.failure(operation, e);
    }
  }

  // -- nodes and edges -------------------------------------------------------
  void remember_node(const std::string& host_key, std::int64_t node_id) {
    if (node_ids.size() >= kNodeCacheLimit)
      node_ids.clear();
    node_ids.emplace(host_key, node_id);
  }

  // The crawled page's node: its id (the node created if new), with the
  // page counted and its text offered to the node's description in memory,
  // written once a node and batch just before it commits
  // (write_node_counts), as edges are, instead of an update a page.
  std::int64_t count_crawled_node(const PageRow& page) {
    const std::int64_t node_id = node_id_for(page.host_key);
    if (crawled_in_call_count == crawled_in_call.size())
      crawled_in_call.emplace_back();
    CrawledNode& c = crawled_in_call[crawled_in_call_count++];
    c.node_id = node_id;
    c.root = is_host_root(page.url);
    c.description.assign(node_description(page));  // reuses the slot's buffer
    return node_id;
  }

  // What a batch adds to a node, folded page by page in crawl order: each
  // page's text becomes the description when the node has none, and a
  // host root's replaces any.
  struct NodeCount {
    std::int64_t pages = 0;
    std::string root_description;   // the last host root's text, if any
    std::string first_description;  // the first other page's text, if any
  };

  void keep_call_nodes() {
    for (std::size_t i = 0; i < crawled_in_call_count; ++i) {
      const CrawledNode& c = crawled_in_call[i];
      NodeCount& n = node_counts[c.node_id];
      ++n.pages;
      if (c.description.empty())
        continue;
      if (c.root)
        n.root_description = c.description;
      else if (n.first_description.empty())
        n.first_description = c.description;
    }
    crawled_in_call_count = 0;
  }

  void write_node_counts() {
    for (const auto& [node_id, n] : node_counts) {
      StatementUse use(add_node_counts);
      add_node_counts.bind(1, node_id);
      add_node_counts.bind(2, n.pages);
      bind_text_in_place(add_node_counts, 3, n.root_description);
      bind_text_in_place(add_node_counts, 4, n.first_description);
      add_node_counts.exec();
    }
    node_counts.clear();
  }

  // A link target's node: created if new, otherwise left untouched.
  std::int64_t node_id_for(const std::string& host_key) {
    if (const auto it = node_ids.find(host_key); it != node_ids.end())
      return it->second;
    std::int64_t node_id = 0;
    {
      StatementUse use(insert_node);
      insert_node.bind(1, host_key);
      // DO NOTHING returns no row for an existing node.
      if (insert_node.executeStep())
        node_id = insert_node.getColumn(0).getInt64();
    }
    if (node_id == 0) {
      StatementUse use(find_node);
      find_node.bind(1, host_key);
      find_node.executeStep();
      node_id = find_node.getColumn(0).getInt64();
    }
    remember_node(host_key, node_id);
    return node_id;
  }

  // Edges are counted in memory for the open batch and written just before
  // it commits, one upsert a pair instead of one a page and pair: a batch of
  // 512 pages of a few hosts names the same pairs again and again. Counted
  // for a write call once the batch keeps it (keep_call_edges).
  void add_edge(std::int64_t from_node_id, std::int64_t to_node_id) {
    edges_in_call.emplace_back(from_node_id, to_node_id);
  }

  void keep_call_edges() {
    for (const auto& pair : edges_in_call) {
      const auto [at, added] = edge_index.try_emplace(pair, edge_weights.size());
      if (added)
        edge_weights.push_back({pair, 0});
      ++edge_weights[at->second].second;
    }
    edges_in_call.clear();
  }

  // In the order the pairs were first met, so edge ids follow the crawl.
  // An edge gains its weight by its id, cached once the edge is found or
  // written (and dropped when writes are undone): an upsert costs three
  // times that (the unique index probed for a conflict, the AUTOINCREMENT
  // counter read; with RETURNING, to learn the id, ten times), and a crawl
  // adds weight to the same edges commit after commit.
  void write_edges() {
    for (const auto& [pair, weight] : edge_weights) {
      if (const auto it = edge_ids.find(pair); it != edge_ids.end()) {
        if (add_weight_by_id(it->second, weight))
          continue;
        edge_ids.erase(it);  // gone since: found or written anew below
      }
      std::int64_t edge_id = 0;
      {
        StatementUse use(find_edge);
        find_edge.bind(1, pair.first);
        find_edge.bind(2, pair.second);
        if (find_edge.executeStep())
          edge_id = find_edge.getColumn(0).getInt64();
      }
      if (edge_id != 0) {
        add_weight_by_id(edge_id, weight);
      } else {
        StatementUse use(insert_edge);
        insert_edge.bind(1, pair.first);
        insert_edge.bind(2, pair.second);
        insert_edge.bind(3, weight);
        insert_edge.exec();
        edge_id = db.getLastInsertRowid();
      }
      if (edge_ids.size() >= kEdgeCacheLimit)
        edge_ids.clear();
      edge_ids.emplace(pair, edge_id);
    }
    edge_weights.clear();
    edge_index.clear();
  }

  bool add_weight_by_id(std::int64_t edge_id, std::int64_t weight) {
    StatementUse use(add_edge_weight);
    add_edge_weight.bind(1, edge_id);
    add_edge_weight.bind(2, weight);
    return add_edge_weight.exec() == 1;
  }

  // -- pages and links -------------------------------------------------------
  struct StoredAnswer {
    bool row = false;  // the URL has a pages row (an answer or an error)
    std::int64_t page_id = 0;  // that row's
    StoredPage page;
    std::int64_t revisit_interval_ms = 0;
  };

  // `before`: the row as stored_answer read it in this same transaction, so
  // the upsert updates exactly when it found one. Its id is known then, and
  // a new row's is the last one inserted: no RETURNING, which SQLite runs
  // through a temporary table of its own on every execution.
  std::int64_t upsert_page_row(const PageRow& page, std::int64_t node_id, const StoredAnswer& before) {
    auto& s = upsert_page;
    StatementUse use(s);
    bind_in_place(s, 1, page.url);
    s.bind(2, node_id);
    s.bind(3, page.depth);
    bind_nonzero(s, 4, page.status_code);
    bind_text_in_place(s, 5, page.content_type);
    bind_text_in_place(s, 6, page.title);
    bind_text_in_place(s, 7, page.description);
    s.bind(8, page.bytes);
    s.bind(9, page.fetch_ms);
    s.bind(10, page.fetched_at_ms);
    bind_text_in_place(s, 11, page.error);
    bind_text_in_place(s, 12, page.final_url);
    bind_text_in_place(s, 13, page.redirect_chain);
    s.bind(14, page.truncated ? 1 : 0);
    bind_text_in_place(s, 15, page.canonical_url);
    s.bind(16, page.attempts);
    bind_text_in_place(s, 17, page.robots_directives);
    bind_nonzero(s, 18, page.links_dropped);
    bind_text_in_place(s, 19, page.etag);
    bind_text_in_place(s, 20, page.last_modified);
    bind_text_in_place(s, 21, page.content_digest);
    bind_nonzero(s, 22, revisit_interval_ms);
    joined_link_hosts(page, link_hosts_text);
    bind_text_in_place(s, 23, link_hosts_text);
    bind_text_in_place(s, 24, page.charset);
    s.exec();
    return before.row ? before.page_id : db.getLastInsertRowid();
  }

  // Once per digest: a body already kept (another page's, or this page's
  // unchanged) is not written again.
  void keep_body(const PageRow& page) {
    if (page.body.encoding.empty() || page.content_digest.empty())
      return;
    StatementUse use(insert_body);
    insert_body.bind(1, page.content_digest);
    insert_body.bind(2, page.body.encoding);
    insert_body.bind(3, page.body.size);
    // Not copied by SQLite: `page` outlives the statement's use.
    insert_body.bindNoCopy(4, page.body.data.data(), static_cast<int>(page.body.data.size()));
    insert_body.exec();
  }

  // -- freshness ---------------------------------------------------------------
  // The page as stored before this fetch, read inside the page's own write
  // (the batch's transaction), so the comparison is with what is committed
  // together with it.
  StoredAnswer stored_answer(const std::string& url) {
    StoredAnswer out;
    StatementUse use(select_stored);
    bind_in_place(select_stored, 1, url);
    if (!select_stored.executeStep())
      return out;
    out.row = true;
    // A row with an error (the private-address guard) got no answer.
    out.page.exists = column_text(select_stored.getColumn(2)).empty() && !select_stored.getColumn(0).isNull();
    out.page.status_code = select_stored.getColumn(0).getInt();
    out.page.digest = column_text(select_stored.getColumn(1));
    out.revisit_interval_ms = select_stored.getColumn(3).getInt64();
    out.page_id = select_stored.getColumn(4).getInt64();
    return out;
  }

  void record_change(const std::string& url, PageChange change, std::int64_t at_ms) {
    if (change == PageChange::failed)
      return;
    StatementUse use(insert_change);
    insert_change.bind(1, run_id);
    bind_in_place(insert_change, 2, url);
    insert_change.bind(3, to_string(change));
    insert_change.bind(4, at_ms);
    insert_change.exec();
  }

  // A 304 to the stored validators: the row, its links and items stay; the
  // fetch is recorded (it used a request and the budget like any fetch).
  // It is a crawl of the page's node like any other: the node's count goes
  // up and the edges the stored page counted count once more, in this same
  // transaction, as they would for a body that had not changed.
  void refresh_not_modified(const PageRow& page) {
    const std::int64_t node_id = count_crawled_node(page);
    std::string link_hosts;
    {
      StatementUse use(refresh_page);
      refresh_page.bind(1, page.url);
      refresh_page.bind(2, page.depth);
      refresh_page.bind(3, page.fetch_ms);
      refresh_page.bind(4, page.fetched_at_ms);
      refresh_page.bind(5, page.attempts);
      bind_text(refresh_page, 6, page.etag);
      bind_text(refresh_page, 7, page.last_modified);
      bind_nonzero(refresh_page, 8, revisit_interval_ms);
      // SQLite makes the change in the first step, which yields the row.
      if (refresh_page.executeStep())
        link_hosts = column_text(refresh_page.getColumn(0));
    }
    std::size_t start = 0;
    while (start < link_hosts.size()) {
      const std::size_t end = std::min(link_hosts.find(' ', start), link_hosts.size());
      if (end > start)
        add_edge(node_id, node_id_for(link_hosts.substr(start, end - start)));
      start = end + 1;
    }
  }

  // The hosts whose edges the page counts (its own host never: the domain
  // graph has no self-loops), space-separated for pages.link_hosts.
  static void joined_link_hosts(const PageRow& page, std::string& joined) {
    joined.clear();
    for (const auto& host_key : page.link_host_keys) {
      if (host_key == page.host_key)
        continue;
      if (!joined.empty())
        joined += ' ';
      joined += host_key;
    }
  }

  // `stored_before`: the page had a row, which may have links to replace;
  // a new page has none, and is spared the search.
  void replace_links(std::int64_t page_id, const LinkList& links, bool stored_before) {
    if (stored_before) {
      StatementUse use(delete_links);
      delete_links.bind(1, page_id);
      delete_links.exec();
    }
    if (links.empty())
      return;
    // One row: the targets as a JSON array in document order, one flag
    // digit each. The header promises unique links; a repeated target
    // keeps its first position rather than failing the page.
    link_urls.assign(1, '[');
    link_flags.clear();
    const bool unique = links_unique(links);
    if (!unique)
      mark_repeats(links);
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::string_view url = links.url(i);
      if (!unique && link_repeat[i])
        continue;
      if (link_urls.size() > 1)
        link_urls += ',';
      append_json_string(link_urls, url);
      link_flags += static_cast<char>('0' + (links.nofollow(i) ? 1 : 0) + (links.followed(i) ? 2 : 0));
    }
    link_urls += ']';
    StatementUse use(insert_page_links);
    insert_page_links.bind(1, page_id);
    insert_page_links.bindNoCopy(2, link_urls);
    insert_page_links.bindNoCopy(3, link_flags);
    insert_page_links.exec();
  }

  // Whether no two links share a target, told without allocating: by their
  // hashes, and by text only when two hashes meet.
  bool links_unique(const LinkList& links) {
    link_hashes.clear();
    for (std::size_t i = 0; i < links.size(); ++i)
      link_hashes.push_back(std::hash<std::string_view>{}(links.url(i)));
    std::sort(link_hashes.begin(), link_hashes.end());
    return std::adjacent_find(link_hashes.begin(), link_hashes.end()) == link_hashes.end();
  }

  // Marks in link_repeat every link whose URL an earlier link has: their
  // places sorted by URL, then by place, and each run's first kept. A sort
  // and not a hash set: the URLs come from pages, which could choose them
  // to share one hash, and a set would then cost the square of their number.
  void mark_repeats(const LinkList& links) {
    link_order.resize(links.size());
    std::iota(link_order.begin(), link_order.end(), std::size_t{0});
    std::sort(link_order.begin(), link_order.end(), [&links](std::size_t a, std::size_t b) {
      const std::string_view x = links.url(a);
      const std::string_view y = links.url(b);
      return x < y || (x == y && a < b);
    });
    link_repeat.assign(links.size(), 0);
    for (std::size_t k = 1; k < link_order.size(); ++k)
      if (links.url(link_order[k]) == links.url(link_order[k - 1]))
        link_repeat[link_order[k]] = 1;
  }

  // A refetch replaces what the last fetch's processors found.
  void replace_items(std::int64_t page_id, const PageRow& page, bool stored_before) {
    for (SQLite::Statement* clear : {&delete_items, &delete_failures}) {
      if (!stored_before)
        break;
      StatementUse use(*clear);
      clear->bind(1, page_id);
      clear->exec();
    }
    for (const auto& item : page.items) {
      StatementUse use(insert_item);
      insert_item.bind(1, page_id);
      bind_in_place(insert_item, 2, item.kind);
      bind_in_place(insert_item, 3, item.json);
      insert_item.exec();
    }
    for (const auto& failure : page.processor_failures) {
      StatementUse use(insert_failure);
      insert_failure.bind(1, page_id);
      insert_failure.bind(2, failure.processor);
      insert_failure.bind(3, failure.reason);
      bind_text(insert_failure, 4, failure.detail);
      insert_failure.bind(5, page.fetched_at_ms);
      insert_failure.exec();
    }
  }

  // What a call that failed past its undo left is not this call's.
  void start_call() {
    crawled_in_call_count = 0;
    edges_in_call.clear();
  }

  void store_page(const PageRow& page) {
    const StoredAnswer before = stored_answer(page.url);
    const RefetchResult now{page.error.empty(), page.status_code, page.not_modified, page.content_digest};
    const PageChange change = classify_change(before.page, now);
    revisit_interval_ms =
      revisit && revisit->settings().adaptive ? revisit->next_interval(before.revisit_interval_ms, change) : 0;
    record_change(page.url, change, page.fetched_at_ms);
    if (page.not_modified && before.page.exists) {
      refresh_not_modified(page);
      return;
    }
    const std::int64_t node_id = count_crawled_node(page);
    const std::int64_t page_id = upsert_page_row(page, node_id, before);
    keep_body(page);
    replace_links(page_id, page.links, before.row);
    replace_items(page_id, page, before.row);
    for (const auto& host_key : page.link_host_keys) {
      // The domain graph has no self-loops: same-host links are not edges.
      if (host_key == page.host_key)
        continue;
      add_edge(node_id, node_id_for(host_key));
    }
  }

  // The root URL of a host, with the scheme it was discovered with: from the
  // frontier if it was ever queued, else from any link to it, else http.
  std::string root_url_of(const std::string& host_key) {
    {
      StatementUse use(root_in_frontier);
      root_in_frontier.bind(1, host_key);
      if (root_in_frontier.executeStep())
        return column_text(root_in_frontier.getColumn(0));
    }
    // A range of link_targets (built before the resume asks): any link to
    // the host tells its scheme. Prepared here, since the table exists only
    // between runs.
    if (!link_to_host)
      link_to_host.emplace(db, "SELECT 1 FROM link_targets WHERE to_url >= ?1 AND to_url < ?2 LIMIT 1");
    for (const char* scheme : {"https://", "http://"}) {
      const std::string prefix = scheme + host_key + "/";
      StatementUse use(*link_to_host);
      link_to_host->bind(1, prefix);
      link_to_host->bind(2, prefix.substr(0, prefix.size() - 1) + "0");  // '/' + 1
      if (link_to_host->executeStep())
        return prefix;
    }
    return "http://" + host_key + "/";
  }

  // -- frontier --------------------------------------------------------------
  void insert_frontier_row(const FrontierEntry& entry, std::int64_t discovered_at) {
    StatementUse use(insert_frontier);
    insert_frontier.bind(1, entry.seq);
    bind_in_place(insert_frontier, 2, entry.url);
    insert_frontier.bind(3, entry.depth);
    bind_text_in_place(insert_frontier, 4, entry.parent_url);
    insert_frontier.bind(5, discovered_at);
    bind_nonzero(insert_frontier, 6, entry.lastmod_ms);
    insert_frontier.exec();
  }

  void insert_frontier_rows(const std::vector<FrontierEntry>& entries) {
    const std::int64_t discovered_at = epoch_ms();
    for (const auto& entry : entries)
      insert_frontier_row(entry, discovered_at);
  }

  // ?1 to ?5 of requeue_row and refuse_row: the entry and when.
  static void bind_entry(SQLite::Statement& s, const FrontierEntry& entry, std::int64_t at) {
    s.bind(1, entry.seq);
    bind_in_place(s, 2, entry.url);
    s.bind(3, entry.depth);
    bind_text_in_place(s, 4, entry.parent_url);
    s.bind(5, at);
  }

  void requeue_rows(const std::vector<FrontierEntry>& entries) {
    const std::int64_t at = epoch_ms();
    for (const auto& entry : entries) {
      StatementUse use(requeue_row);
      bind_entry(requeue_row, entry, at);
      requeue_row.exec();
    }
  }

  void settle_rows(const std::vector<std::string>& urls, FrontierState state) {
    for (const auto& url : urls)
      settle(url, state);
  }

  void refuse_rows(const std::vector<FrontierRefusal>& refusals) {
    const std::int64_t at = epoch_ms();
    for (const auto& r : refusals) {
      StatementUse use(refuse_row);
      bind_entry(refuse_row, r.entry, at);
      bind_in_place(refuse_row, 6, r.reason);
      refuse_row.exec();
    }
  }

  void park_rows(const std::vector<FrontierRefusal>& parked) {
    const std::int64_t at = epoch_ms();
    for (const auto& p : parked) {
      StatementUse use(park_row);
      bind_in_place(park_row, 1, p.entry.url);
      park_row.bind(2, at);
      bind_in_place(park_row, 3, p.reason);
      park_row.exec();
    }
  }

  void settle(const std::string& url, FrontierState state) {
    StatementUse use(settle_frontier);
    settle_frontier.bind(1, static_cast<int>(state));
    // A row put back to 'queued' is no longer settled.
    if (state == FrontierState::queued)
      settle_frontier.bind(2);
    else
      settle_frontier.bind(2, epoch_ms());
    bind_in_place(settle_frontier, 3, url);
    settle_frontier.exec();
  }

  // The validators a revisit of `url` sends: those of its stored page when
  // the page is the URL's own answer (not a redirect target's).
  std::tuple<std::string, std::string, std::string> validators_of(const std::string& url) {
    StatementUse use(select_validators);
    select_validators.bind(1, url);
    if (!select_validators.executeStep())
      return {};
    return {column_text(select_validators.getColumn(0)), column_text(select_validators.getColumn(1)),
            column_text(select_validators.getColumn(2))};
  }

  std::vector<FrontierEntry> due_rows(std::int64_t now_ms, std::int64_t revisit_after_ms, std::size_t limit) {
    StatementUse use(select_due);
    select_due.bind(1, now_ms);
    select_due.bind(2, revisit_after_ms);
    return frontier_entries(select_due, 3, limit);
  }

  std::vector<FrontierEntry> queued_rows(std::int64_t from_seq, std::size_t limit) {
    StatementUse use(select_queued);
    select_queued.bind(1, from_seq);
    return frontier_entries(select_queued, 2, limit);
  }

  // Every row's first column, as text (`q` bound, and in use).
  static std::vector<std::string> first_column_texts(SQLite::Statement& q) {
    std::vector<std::string> out;
    while (q.executeStep())
      out.push_back(q.getColumn(0).getString());
    return out;
  }

  // At most `limit` rows of `q`, bound as its parameter `limit_at` (a
  // size_t past SQLite's int64 means all of them), as frontier entries.
  static std::vector<FrontierEntry> frontier_entries(SQLite::Statement& q, int limit_at, std::size_t limit) {
    const auto max_limit = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
    q.bind(limit_at, static_cast<std::int64_t>(std::min(limit, max_limit)));
    std::vector<FrontierEntry> rows;
    while (q.executeStep())
      rows.push_back(frontier_entry_of(q));
    return rows;
  }

  ResumeState resume_state() {
    ResumeState state;
    std::int64_t max_seq = 0;
    StatementUse use(scan_frontier);
    while (scan_frontier.executeStep()) {
      max_seq = std::max(max_seq, scan_frontier.getColumn(0).getInt64());
      // Hashed straight from SQLite's buffer: millions of rows, no copies.
      // The pointer is fetched before the size, as SQLite requires.
      const SQLite::Column url = scan_frontier.getColumn(1);
      const auto* bytes = static_cast<const char*>(url.getBlob());
      const auto size = static_cast<std::size_t>(url.getBytes());
      const int row_state = scan_frontier.getColumn(2).getInt();
      // Rows settled for good are never lowered: kept at depth 0. Fetched
      // rows keep their depth (met closer to a seed, their links are offered
      // again) and are never queued again.
      const bool for_good = for_good_failure(row_state) || row_state == static_cast<int>(FrontierState::refused);
      const bool fetched = row_state == static_cast<int>(FrontierState::done);
      state.seen.push_back(SeenUrl{url_fingerprint(std::string_view(bytes, size)),
                                   for_good ? 0 : scan_frontier.getColumn(3).getInt(), fetched});
      if (row_state == static_cast<int>(FrontierState::queued))
        ++state.queued;
      else if (row_state == static_cast<int>(FrontierState::done) || for_good_failure(row_state))
        ++state.settled;
    }
    state.next_seq = max_seq + 1;
    // Requested with their chain's first URL: fetched, so a link to one in
    // this run asks nothing (docs/politeness.md). Not counted as settled:
    // the chain was one fetch.
    StatementUse hops(scan_redirect_targets);
    while (scan_redirect_targets.executeStep())
      state.seen.push_back(SeenUrl{url_fingerprint(scan_redirect_targets.getColumn(0).getString()),
                                   scan_redirect_targets.getColumn(1).getInt(), true});
    return state;
  }

  // -- dead letters ----------------------------------------------------------
  void insert_dead_letter_row(const DeadLetterRow& row) {
    auto& s = insert_dead_letter;
    StatementUse use(s);
    s.bind(1, row.url);
    s.bind(2, row.depth);
    s.bind(3, row.reason);
    bind_text(s, 4, row.detail);
    s.bind(5, row.attempts);
    bind_nonzero(s, 6, row.status_code);
    s.bind(7, row.failed_at_ms);
    s.exec();
  }

  // Must run inside the write transaction: the letters read are exactly the
  // letters marked, because no other writer can insert in between.
  RedriveReport redrive(const RedriveFilter& filter) {
    struct Letter {
      std::int64_t id;
      std::string url;
      std::int32_t depth;
      std::string reason;
    };
    std::vector<Letter> letters;
    {
      auto& q = select_redrive;
      StatementUse use(q);
      q.bind(1, filter.reason);
      q.bind(2, filter.failed_before_ms);
      while (q.executeStep())
        letters.push_back(Letter{q.getColumn(0).getInt64(), column_text(q.getColumn(1)), q.getColumn(2).getInt(),
                                 column_text(q.getColumn(3))});
    }
    RedriveReport report;
    std::map<std::string, std::int64_t> by_reason;
    std::set<std::string> urls;
    std::int64_t next_seq = 0;
    for (const auto& letter : letters) {
      ++report.letters;
      ++by_reason[letter.reason];
      {
        StatementUse use(mark_redriven);
        mark_redriven.bind(1, letter.id);
        mark_redriven.exec();
      }
      // A URL failed in several runs has several letters, and is queued once.
      if (!urls.insert(letter.url).second)
        continue;
      StatementUse use(requeue_settled);
      requeue_settled.bind(1, letter.url);
      if (requeue_settled.exec() > 0) {
        ++report.requeued;
        continue;
      }
      StatementUse use_state(frontier_state_of);
      frontier_state_of.bind(1, letter.url);
      if (frontier_state_of.executeStep()) {
        ++report.already_queued_or_done;
        continue;
      }
      // Never in the frontier (a database from before the frontier kept
      // every URL): a row of its own, after every other.
      if (next_seq == 0) {
        StatementUse use_max(max_seq);
        max_seq.executeStep();
        next_seq = max_seq.getColumn(0).getInt64() + 1;
      }
      insert_frontier_row(FrontierEntry{next_seq++, letter.url, letter.depth, std::string{}}, epoch_ms());
      ++report.requeued;
    }
    report.by_reason.assign(by_reason.begin(), by_reason.end());
    return report;
  }

  // -- summary ---------------------------------------------------------------
  StoreSummary summarize(std::int64_t since_ms, const std::vector<std::string>& seed_urls) {
    StoreSummary out;
    for (const auto& url : seed_urls) {
      StatementUse use(refusal_of);
      refusal_of.bind(1, url);
      out.seed_refusals.push_back(refusal_of.executeStep() ? refusal_of.getColumn(0).getString() : std::string{});
    }
    {
      StatementUse use(summary_nodes);
      summary_nodes.executeStep();
      out.nodes_discovered = summary_nodes.getColumn(0).getInt64();
      out.nodes_crawled = summary_nodes.getColumn(1).getInt64();
    }
    {
      StatementUse use(summary_edges);
      summary_edges.executeStep();
      out.edges_recorded = summary_edges.getColumn(0).getInt64();
    }
    {
      StatementUse use(summary_pages);
      summary_pages.bind(1, since_ms);
      summary_pages.executeStep();
      out.pages_fetched = summary_pages.getColumn(0).getInt64();
      out.pages_failed = summary_pages.getColumn(1).getInt64();
      out.avg_fetch_time_ms = summary_pages.getColumn(2).getInt64();
      out.links_dropped = summary_pages.getColumn(3).getInt64();
      out.pages_truncated = summary_pages.getColumn(4).getInt64();
    }
    {
      StatementUse use(summary_unprocessed);
      summary_unprocessed.bind(1, since_ms);
      summary_unprocessed.executeStep();
      out.pages_processor_failed = summary_unprocessed.getColumn(0).getInt64();
    }
    {
      StatementUse use(summary_items);
      summary_items.bind(1, since_ms);
      summary_items.executeStep();
      out.items_stored = summary_items.getColumn(0).getInt64();
    }
    {
      StatementUse use(summary_failures);
      summary_failures.bind(1, since_ms);
      while (summary_failures.executeStep())
        out.processor_failures.push_back(ProcessorFailureCount{summary_failures.getColumn(0).getString(),
                                                               summary_failures.getColumn(1).getString(),
                                                               summary_failures.getColumn(2).getInt64()});
    }
    {
      StatementUse use(summary_parked);
      summary_parked.executeStep();
      out.urls_parked = summary_parked.getColumn(0).getInt64();
    }
    {
      StatementUse use(summary_sitemap_urls);
      summary_sitemap_urls.executeStep();
      out.sitemap_urls_queued = summary_sitemap_urls.getColumn(0).getInt64();
    }
    {
      StatementUse use(summary_sitemap_outcomes);
      summary_sitemap_outcomes.bind(1, since_ms);
      while (summary_sitemap_outcomes.executeStep()) {
        std::string outcome = summary_sitemap_outcomes.getColumn(0).getString();
        const std::string reason = summary_sitemap_outcomes.getColumn(1).getString();
        if (!reason.empty())
          outcome += "/" + reason;
        out.sitemap_outcomes.push_back(SitemapOutcomeCount{std::move(outcome), summary_sitemap_outcomes.getColumn(2).getInt64()});
      }
      for (const auto& [name, count] : sitemap_refusals)
        out.sitemap_outcomes.push_back(SitemapOutcomeCount{"not_fetched/" + name, count});
    }
    out.changes = change_counts(run_id);
    return out;
  }

  PageChangeCounts change_counts(std::int64_t of_run) {
    PageChangeCounts counts;
    StatementUse use(count_changes);
    count_changes.bind(1, of_run);
    while (count_changes.executeStep()) {
      const auto change = parse_page_change(column_text(count_changes.getColumn(0)));
      const std::int64_t n = count_changes.getColumn(1).getInt64();
      if (!change)
        continue;
      switch (*change) {
        case PageChange::new_page: counts.new_pages = n; break;
        case PageChange::changed: counts.changed = n; break;
        case PageChange::unchanged: counts.unchanged = n; break;
        case PageChange::gone: counts.gone = n; break;
        case PageChange::failed: break;
      }
    }
    return counts;
  }

  std::string path;
  SQLite::Database db;
  std::unordered_map<std::string, std::int64_t> node_ids;
  // The run begin_run opened: page_changes rows name it (0 before any).
  std::int64_t run_id = 0;
  // Set whenever revisit_after is on: when a sitemap's <lastmod> makes a
  // page due, and with adaptive revisits each page's interval, moved by
  // what its fetch found (without: none is stored, revisit_after applies to
  // every page).
  std::optional<RevisitPolicy> revisit;
  std::int64_t revisit_interval_ms = 0;  // of the page being stored
  // Declared after db: its statements are finalized before the connection
  // closes.
  WriteBatch batch;

  // Prepared once, after the schema exists; declared after `db` so they are
  // finalized before the connection closes.

  // A batch's pages of one node (write_node_counts).
  SQLite::Statement add_node_counts{db, R"sql(
      UPDATE nodes SET
        crawl_count = COALESCE(crawl_count, 0) + ?2,
        description = CASE
          WHEN ?3 IS NOT NULL THEN ?3
          WHEN description IS NULL THEN ?4
          ELSE description END
      WHERE node_id = ?1)sql"};
  // count_crawled_node's: the pages of the write call under way (a slot's
  // buffer reused from call to call), and the open batch's counts by node.
  struct CrawledNode {
    std::int64_t node_id = 0;
    bool root = false;
    std::string description;
  };
  std::vector<CrawledNode> crawled_in_call;
  std::size_t crawled_in_call_count = 0;
  std::unordered_map<std::int64_t, NodeCount> node_counts;
  SQLite::Statement insert_node{db, R"sql(
      INSERT INTO nodes(domain_name) VALUES(?1)
      ON CONFLICT(domain_name) DO NOTHING
      RETURNING node_id)sql"};
  SQLite::Statement find_node{db, "SELECT node_id FROM nodes WHERE domain_name = ?1"};
  SQLite::Statement find_edge{db, "SELECT edge_id FROM edges WHERE from_node_id = ?1 AND to_node_id = ?2"};
  SQLite::Statement insert_edge{db, "INSERT INTO edges(from_node_id, to_node_id, weight) VALUES(?1, ?2, ?3)"};
  SQLite::Statement add_edge_weight{db, "UPDATE edges SET weight = weight + ?2 WHERE edge_id = ?1"};
  // add_edge's: the pairs of the write call under way, and the open batch's
  // weights by pair, in first-met order.
  using EdgePair = std::pair<std::int64_t, std::int64_t>;
  struct EdgePairHash {
    std::size_t operator()(const EdgePair& p) const noexcept {
      return std::hash<std::int64_t>{}(p.first * 1000003 + p.second);
    }
  };
  std::vector<EdgePair> edges_in_call;
  std::vector<std::pair<EdgePair, std::int64_t>> edge_weights;
  std::unordered_map<EdgePair, std::size_t, EdgePairHash> edge_index;
  // Edge ids by pair, for the edges written in committed batches or this one.
  std::unordered_map<EdgePair, std::int64_t, EdgePairHash> edge_ids;

  // Updated in place rather than replaced, so page_id (which links refer
  // to) survives a refetch.
  SQLite::Statement upsert_page{db, R"sql(
      INSERT INTO pages(url, node_id, depth, status_code, content_type, title, description,
                        bytes, fetch_ms, fetched_at, error, final_url, redirect_chain,
                        truncated, canonical_url, attempts, robots_directives, links_dropped,
                        etag, last_modified, content_digest, revisit_interval_ms, link_hosts, charset)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
             ?19, ?20, ?21, ?22, ?23, ?24)
      ON CONFLICT(url) DO UPDATE SET
        node_id = excluded.node_id, depth = excluded.depth,
        status_code = excluded.status_code, content_type = excluded.content_type,
        title = excluded.title, description = excluded.description,
        bytes = excluded.bytes, fetch_ms = excluded.fetch_ms,
        fetched_at = excluded.fetched_at, error = excluded.error,
        final_url = excluded.final_url, redirect_chain = excluded.redirect_chain,
        truncated = excluded.truncated, canonical_url = excluded.canonical_url,
        attempts = excluded.attempts, robots_directives = excluded.robots_directives,
        links_dropped = excluded.links_dropped,
        etag = excluded.etag, last_modified = excluded.last_modified,
        content_digest = excluded.content_digest, revisit_interval_ms = excluded.revisit_interval_ms,
        link_hosts = excluded.link_hosts, charset = excluded.charset)sql"};
  SQLite::Statement insert_body{db, R"sql(
      INSERT INTO bodies(content_digest, encoding, size, body) VALUES(?1, ?2, ?3, ?4)
      ON CONFLICT(content_digest) DO NOTHING)sql"};
  SQLite::Statement select_stored{db, R"sql(
      SELECT status_code, content_digest, error, COALESCE(revisit_interval_ms, 0), page_id FROM pages WHERE url = ?1)sql"};
  // A 304 may repeat the validators, or send newer ones (RFC 9110 15.4.5):
  // those it sends replace the stored ones; the rest stay.
  SQLite::Statement refresh_page{db, R"sql(
      UPDATE pages SET depth = MIN(depth, ?2), fetch_ms = ?3, fetched_at = ?4, attempts = ?5,
        etag = COALESCE(?6, etag), last_modified = COALESCE(?7, last_modified),
        revisit_interval_ms = ?8
      WHERE url = ?1
      RETURNING link_hosts)sql"};
  SQLite::Statement insert_change{
      db, "INSERT INTO page_changes(run_id, url, change, at) VALUES(?1, ?2, ?3, ?4)"};
  SQLite::Statement count_changes{
      db, "SELECT change, COUNT(*) FROM page_changes WHERE run_id = ?1 GROUP BY change"};
  SQLite::Statement select_validators{db, R"sql(
      SELECT etag, last_modified, content_digest FROM pages
      WHERE url = ?1 AND COALESCE(error, '') = '' AND COALESCE(redirect_chain, '') = '')sql"};
  // Each page's own interval when adaptive revisits stored one, else
  // revisit_after (?2).
  SQLite::Statement requeue_due_rows{db, R"sql(
      UPDATE frontier SET state = 0, settled_at = NULL
      WHERE state = 1 AND settled_at + COALESCE(
        (SELECT NULLIF(p.revisit_interval_ms, 0) FROM pages p WHERE p.url = frontier.url), ?2) < ?1)sql"};
  SQLite::Statement finish_run_counts{db, R"sql(
      UPDATE crawl_runs SET pages_new = ?2, pages_changed = ?3, pages_unchanged = ?4, pages_gone = ?5
      WHERE run_id = ?1)sql"};
  SQLite::Statement delete_links{db, "DELETE FROM page_links WHERE page_id = ?1"};
  SQLite::Statement delete_items{db, "DELETE FROM items WHERE page_id = ?1"};
  SQLite::Statement delete_failures{db, "DELETE FROM processor_failures WHERE page_id = ?1"};
  SQLite::Statement insert_item{db, "INSERT INTO items(page_id, kind, item) VALUES(?1, ?2, ?3)"};
  SQLite::Statement insert_failure{db, R"sql(
      INSERT INTO processor_failures(page_id, processor, reason, detail, failed_at) VALUES(?1, ?2, ?3, ?4, ?5))sql"};
  SQLite::Statement insert_page_links{db, "INSERT INTO page_links(page_id, urls, flags) VALUES(?1, ?2, ?3)"};
  // replace_links's scratch, kept between pages.
  std::string link_urls;
  std::string link_flags;
  std::vector<std::size_t> link_order;  // only for a page whose hashes meet
  std::vector<char> link_repeat;
  std::vector<std::size_t> link_hashes;
  std::string link_hosts_text;  // upsert_page_row's

  SQLite::Statement insert_frontier{db, R"sql(
      INSERT INTO frontier(seq, url, depth, parent_url, state, discovered_at, lastmod)
      VALUES(?1, ?2, ?3, ?4, 0, ?5, ?6)
      ON CONFLICT(url) DO NOTHING)sql"};
  // A refusal (a URL never fetched) never replaces what a document's own
  // fetch recorded; any other outcome does.
  SQLite::Statement upsert_sitemap{db, R"sql(
      INSERT INTO sitemaps(url, host, status, reason, urls_found, urls_accepted, fetched_at, named_by)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
      ON CONFLICT(url) DO UPDATE SET host = excluded.host, status = excluded.status, reason = excluded.reason,
        urls_found = excluded.urls_found, urls_accepted = excluded.urls_accepted, fetched_at = excluded.fetched_at,
        named_by = coalesce(excluded.named_by, sitemaps.named_by)
      WHERE excluded.status <> 'refused' OR sitemaps.status = 'refused')sql"};
  SQLite::Statement sitemaps_read{db, R"sql(
      SELECT url FROM sitemaps WHERE status IN ('fetched', 'redirected') AND fetched_at >= ?1
        AND coalesce(reason, '') <> 'children_unread')sql"};
  // Where runs left sitemaps unread: documents a stop or the max_pages
  // bound ended, and indexes whose children did not all end read; the
  // topmost of each chain only (its re-reading names what lies below).
  SQLite::Statement sitemaps_unfinished{db, R"sql(
      SELECT s.url FROM sitemaps s
      WHERE ((s.status = 'failed' AND s.reason IN ('stopped', 'max_pages'))
             OR (s.status = 'fetched' AND s.reason = 'children_unread'))
        AND NOT EXISTS (SELECT 1 FROM sitemaps p WHERE p.url = s.named_by AND p.reason = 'children_unread')
      ORDER BY s.url)sql"};
  SQLite::Statement sitemaps_older{db, R"sql(
      SELECT url FROM sitemaps WHERE status IN ('fetched', 'redirected') AND fetched_at < ?1 ORDER BY url)sql"};
  SQLite::Statement summary_sitemap_outcomes{db, R"sql(
      SELECT status, reason, COUNT(*) FROM sitemaps WHERE fetched_at >= ?1 GROUP BY status, reason
      ORDER BY status, reason)sql"};
  SQLite::Statement summary_sitemap_urls{db, R"sql(
      SELECT COUNT(*) FROM frontier WHERE parent_url IN (SELECT url FROM sitemaps))sql"};
  // Sitemap URLs of this run refused before they became documents (named
  // again, ...): counted, not rows.
  std::map<std::string, std::int64_t> sitemap_refusals;
  SQLite::Statement refuse_row{db, R"sql(
      INSERT INTO frontier(seq, url, depth, parent_url, state, discovered_at, settled_at, refusal)
      VALUES(?1, ?2, ?3, ?4, 3, ?5, ?5, ?6)
      ON CONFLICT(url) DO UPDATE SET state = 3, settled_at = excluded.settled_at,
                                     refusal = excluded.refusal
      WHERE frontier.state = 0)sql"};
  SQLite::Statement upsert_robots{db, R"sql(
      INSERT INTO robots_txt(host, url, status_code, outcome, crawl_delay_ms, sitemaps, fetched_at)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)
      ON CONFLICT(host) DO UPDATE SET url = excluded.url, status_code = excluded.status_code,
        outcome = excluded.outcome, crawl_delay_ms = excluded.crawl_delay_ms,
        sitemaps = excluded.sitemaps, fetched_at = excluded.fetched_at)sql"};
  SQLite::Statement find_seed_node{db, "SELECT 1 FROM nodes WHERE domain_name = ?1"};
  SQLite::Statement nodes_to_resume{
      db, "SELECT domain_name, crawl_count FROM nodes ORDER BY node_id"};
  SQLite::Statement root_in_frontier{
      db, "SELECT url FROM frontier WHERE url = 'https://' || ?1 || '/' OR url = 'http://' || ?1 || '/' LIMIT 1"};
  std::optional<SQLite::Statement> link_to_host;  // root_url_of's
  SQLite::Statement count_pages{db, "SELECT COUNT(*) FROM pages"};
  SQLite::Statement max_seq{db, "SELECT IFNULL(MAX(seq), 0) FROM frontier"};
  // Met again closer to a seed: the row takes the new seq and depth.
  SQLite::Statement requeue_row{db, R"sql(
      INSERT INTO frontier(seq, url, depth, parent_url, state, discovered_at)
      VALUES(?1, ?2, ?3, ?4, 0, ?5)
      ON CONFLICT(url) DO UPDATE SET seq = excluded.seq, depth = excluded.depth,
                                     parent_url = excluded.parent_url, state = 0, settled_at = NULL,
                                     refusal = NULL)sql"};
  SQLite::Statement lower_done_row{db, R"sql(
      UPDATE frontier SET depth = ?2, parent_url = ?3 WHERE url = ?1 AND state = 1 AND depth > ?2)sql"};
  SQLite::Statement lower_page{db, "UPDATE pages SET depth = ?2 WHERE url = ?1 AND depth > ?2"};
  SQLite::Statement followed_links{db, R"sql(
      SELECT l.to_url FROM pages p JOIN links l ON l.from_page_id = p.page_id
      WHERE p.url = ?1 AND l.followed = 1 ORDER BY l.position)sql"};
  SQLite::Statement requeue_stale{
      db, "UPDATE frontier SET state = 0, settled_at = NULL WHERE state = 1 AND settled_at < ?1"};
  // A row settled after it was parked no longer names a failure.
  SQLite::Statement settle_frontier{
      db, "UPDATE frontier SET state = ?1, settled_at = ?2, refusal = NULL WHERE url = ?3"};
  // With the stored page's validators, which make a revisit conditional:
  // only when the page is the URL's own answer, not a redirect target's
  // (a validator belongs to the URL that sent it).
  SQLite::Statement select_queued{db, "SELECT " ACTORCRAWL_FRONTIER_ENTRY_COLUMNS
                                      " FROM frontier f LEFT JOIN " ACTORCRAWL_PAGES_WITH_VALIDATORS " p"
                                      " ON p.url = f.url"
                                      " WHERE f.state = 0 AND f.seq >= ?1 ORDER BY f.seq LIMIT ?2"};
  SQLite::Statement scan_frontier{db, "SELECT seq, url, state, depth FROM frontier"};
  // The URLs a stored redirect chain requested besides its first (which has
  // the frontier row): each hop, and the URL it ended at unless the page is
  // a redirect recorded, not followed (then final_url was never asked for).
  // A fetch that ended in an error is left out: its chain is asked again.
  SQLite::Statement scan_redirect_targets{db, R"sql(
      SELECT target, MIN(depth) FROM (
        SELECT json_extract(j.value, '$.url') AS target, p.depth AS depth
          FROM pages p, json_each(CASE WHEN json_valid(p.redirect_chain) THEN p.redirect_chain ELSE '[]' END) j
          WHERE COALESCE(p.redirect_chain, '') <> '' AND COALESCE(p.error, '') = ''
        UNION ALL
        SELECT p.final_url, p.depth FROM pages p
          WHERE COALESCE(p.redirect_chain, '') <> '' AND COALESCE(p.error, '') = '' AND p.final_url IS NOT NULL
            AND (p.status_code < 300 OR p.status_code > 399))
      WHERE target IS NOT NULL AND target NOT IN (SELECT url FROM frontier)
      GROUP BY target)sql"};
  // Done rows whose page's interval has passed: the same rule as
  // requeue_due_rows, read instead of written. A scan of the done rows
  // (idx_frontier_state), once per revisit check.
  SQLite::Statement select_due{db, "SELECT " ACTORCRAWL_FRONTIER_ENTRY_COLUMNS
                                   " FROM frontier f JOIN " ACTORCRAWL_PAGES_WITH_VALIDATORS " p ON p.url = f.url"
                                   " WHERE f.state = 1 AND f.settled_at +"
                                   " COALESCE(NULLIF(p.revisit_interval_ms, 0), ?2) < ?1"
                                   " ORDER BY f.settled_at LIMIT ?3"};

  // One fetched page of the frontier, as select_due gives it, with its
  // fetch history: for a sitemap's <lastmod>.
  SQLite::Statement select_fetched{db, "SELECT " ACTORCRAWL_FRONTIER_ENTRY_COLUMNS ", p.fetched_at, p.revisit_interval_ms"
                                       " FROM frontier f JOIN " ACTORCRAWL_PAGES_WITH_VALIDATORS " p ON p.url = f.url"
                                       " WHERE f.url = ?1 AND f.state = 1"};

  SQLite::Statement insert_dead_letter{db, R"sql(
      INSERT INTO dead_letters(url, depth, reason, detail, attempts, status_code, failed_at)
      VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7))sql"};
  SQLite::Statement select_redrive{db, R"sql(
      SELECT id, url, depth, reason FROM dead_letters
      WHERE redriven = 0 AND (?1 = '' OR reason = ?1) AND failed_at < ?2 ORDER BY id)sql"};
  SQLite::Statement mark_redriven{db, "UPDATE dead_letters SET redriven = 1 WHERE id = ?1"};
  // Only rows settled without a page: one fetched since (a later run, a
  // revisit) is not fetched again for an old letter.
  SQLite::Statement requeue_settled{db, R"sql(
      UPDATE frontier SET state = 0, settled_at = NULL, refusal = NULL
      WHERE url = ?1 AND state IN (2, 3, 4))sql"};
  SQLite::Statement frontier_state_of{db, "SELECT state FROM frontier WHERE url = ?1"};
  SQLite::Statement park_row{db, R"sql(
      UPDATE frontier SET state = 4, settled_at = ?2, refusal = ?3 WHERE url = ?1 AND state IN (0, 4))sql"};
  SQLite::Statement requeue_parked_rows{db, "UPDATE frontier SET state = 0, settled_at = NULL WHERE state = 4"};

  SQLite::Statement insert_run{db, "INSERT INTO crawl_runs(started_at, seeds) VALUES(?1, ?2)"};
  SQLite::Statement finish_run{
      db, "UPDATE crawl_runs SET ended_at = ?2, termination_reason = ?3 WHERE run_id = ?1"};

  SQLite::Statement summary_nodes{
      db, "SELECT COUNT(*), COALESCE(SUM(crawl_count > 0), 0) FROM nodes"};
  SQLite::Statement summary_edges{db, "SELECT COUNT(*) FROM edges"};
  SQLite::Statement summary_parked{db, "SELECT COUNT(*) FROM frontier WHERE state = 4"};
  SQLite::Statement summary_items{
      db, "SELECT COUNT(*) FROM items i JOIN pages p ON p.page_id = i.page_id WHERE p.fetched_at >= ?1"};
  SQLite::Statement summary_failures{db, R"sql(
      SELECT processor, reason, COUNT(*) FROM processor_failures WHERE failed_at >= ?1
      GROUP BY processor, reason ORDER BY processor, reason)sql"};
  SQLite::Statement summary_unprocessed{
      db, "SELECT COUNT(DISTINCT page_id) FROM processor_failures WHERE failed_at >= ?1"};
  // Refused for good (3), with the reason; or fetched only as far as the
  // private-network guard, which refuses the address before a request. A
  // parked row (4) is no refusal: the next run tries it again.
  SQLite::Statement refusal_of{db, R"sql(
      SELECT refusal FROM frontier WHERE url = ?1 AND state = 3 AND COALESCE(refusal, '') <> ''
      UNION ALL
      SELECT error FROM pages WHERE url = ?1 AND error = 'private_address'
      LIMIT 1)sql"};
  SQLite::Statement summary_pages{db, R"sql(
      SELECT COALESCE(SUM(COALESCE(error, '') = ''), 0),
             COALESCE(SUM(COALESCE(error, '') <> ''), 0),
             CAST(COALESCE(ROUND(AVG(CASE WHEN COALESCE(error, '') = '' THEN fetch_ms END)), 0)
                  AS INTEGER),
             COALESCE(SUM(links_dropped), 0),
             COALESCE(SUM(truncated = 1), 0)
      FROM pages WHERE fetched_at >= ?1)sql"};
};

// The lock comes before the file is opened: a second writer is refused
// before it creates, migrates or writes anything.
CrawlStore::CrawlStore(const std::string& path, std::size_t batch_ops)
    : CrawlStore(std::make_unique<DatabaseLock>(path), path, batch_ops) {}

CrawlStore::CrawlStore(std::unique_ptr<DatabaseLock> lock, const std::string& path, std::size_t batch_ops)
    : lock_(std::move(lock)) {
  try {
    impl_ = std::make_unique<Impl>(path, batch_ops);
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + path + "': " + e.what());
  }
}

CrawlStore::~CrawlStore() {
  // Nothing can be reported from a destructor; the owner that cares about
  // the last batch calls flush() first and sees its errors there.
  try {
    impl_->batch.commit();
  } catch (...) {
  }
}

void CrawlStore::add_frontier(const std::vector<FrontierEntry>& entries) {
  if (entries.empty())
    return;
  impl_->batch.write("add_frontier", entries.size(), [&] { impl_->insert_frontier_rows(entries); });
}

void CrawlStore::refuse_frontier(const std::vector<FrontierRefusal>& refusals) {
  if (refusals.empty())
    return;
  impl_->batch.write("refuse_frontier", refusals.size(), [&] { impl_->refuse_rows(refusals); });
}

void CrawlStore::record_robots(const RobotsRecord& r) {
  impl_->batch.write("record_robots", 1, [&] {
    auto& st = impl_->upsert_robots;
    StatementUse use(st);
    st.bind(1, r.host_key);
    st.bind(2, r.url);
    bind_nonzero(st, 3, r.status_code);
    st.bind(4, r.outcome);
    if (r.crawl_delay_ms >= 0)
      st.bind(5, r.crawl_delay_ms);
    else
      st.bind(5);
    std::string sitemaps;
    for (const auto& m : r.sitemaps)
      sitemaps += (sitemaps.empty() ? "" : "\n") + m;
    bind_text(st, 6, sitemaps);
    st.bind(7, r.fetched_at_ms);
    st.exec();
  });
}

void CrawlStore::record_sitemaps(const std::vector<SitemapRow>& rows, const std::vector<SitemapOutcomeCount>& refusals) {
  for (const auto& r : refusals)
    impl_->sitemap_refusals[r.outcome] += r.count;
  if (rows.empty())
    return;
  impl_->batch.write("record_sitemaps", rows.size(), [&] {
    auto& st = impl_->upsert_sitemap;
    for (const auto& r : rows) {
      StatementUse use(st);
      st.bind(1, r.url);
      st.bind(2, r.host_key);
      st.bind(3, r.status);
      bind_text(st, 4, r.reason);
      st.bind(5, r.urls_found);
      st.bind(6, r.urls_accepted);
      st.bind(7, r.fetched_at_ms);
      bind_text(st, 8, r.named_by);
      st.exec();
    }
  });
}

std::vector<std::string> CrawlStore::sitemaps_read(std::int64_t fetched_since_ms) {
  return impl_->batch.read("sitemaps_read", [&] {
    StatementUse use(impl_->sitemaps_read);
    impl_->sitemaps_read.bind(1, fetched_since_ms);
    return Impl::first_column_texts(impl_->sitemaps_read);
  });
}

std::vector<std::string> CrawlStore::sitemaps_unfinished() {
  return impl_->batch.read("sitemaps_unfinished", [&] {
    StatementUse use(impl_->sitemaps_unfinished);
    return Impl::first_column_texts(impl_->sitemaps_unfinished);
  });
}

std::vector<std::string> CrawlStore::sitemaps_due(std::int64_t fetched_since_ms) {
  return impl_->batch.read("sitemaps_due", [&] {
    if (fetched_since_ms <= 0)
      return std::vector<std::string>{};
    StatementUse use(impl_->sitemaps_older);
    impl_->sitemaps_older.bind(1, fetched_since_ms);
    return Impl::first_column_texts(impl_->sitemaps_older);
  });
}

DomainResume CrawlStore::load_domain_resume(const std::string& seed_host_key, std::int64_t max_crawls_per_node) {
  // root_url_of searches links by target: link_targets, built for this
  // read and dropped after it (see begin_run).
  impl_->build_targets("load_domain_resume");
  auto resume = impl_->batch.read("load_domain_resume", [&] {
    DomainResume out;
    {
      StatementUse use(impl_->find_seed_node);
      impl_->find_seed_node.bind(1, seed_host_key);
      out.seed_known = impl_->find_seed_node.executeStep();
    }
    {
      StatementUse use(impl_->count_pages);
      impl_->count_pages.executeStep();
      out.pages_fetched = impl_->count_pages.getColumn(0).getInt64();
    }
    {
      StatementUse use(impl_->max_seq);
      impl_->max_seq.executeStep();
      out.next_seq = impl_->max_seq.getColumn(0).getInt64() + 1;
    }
    if (!out.seed_known)
      return out;
    StatementUse use(impl_->nodes_to_resume);
    while (impl_->nodes_to_resume.executeStep()) {
      DomainNode node;
      node.host_key = column_text(impl_->nodes_to_resume.getColumn(0));
      node.crawl_count = impl_->nodes_to_resume.getColumn(1).getInt64();
      if (node.crawl_count >= max_crawls_per_node) {
        out.saturated.push_back(std::move(node));
        continue;
      }
      node.root_url = impl_->root_url_of(node.host_key);
      std::tie(node.etag, node.last_modified, node.content_digest) = impl_->validators_of(node.root_url);
      out.nodes.push_back(std::move(node));
    }
    return out;
  });
  impl_->drop_targets("load_domain_resume");
  return resume;
}

void CrawlStore::requeue_frontier(const std::vector<FrontierEntry>& entries) {
  if (entries.empty())
    return;
  impl_->batch.write("requeue_frontier", entries.size(), [&] { impl_->requeue_rows(entries); });
}

std::vector<std::string> CrawlStore::relink_fetched(const FrontierEntry& entry) {
  std::vector<std::string> links;
  // One write call: the lowering and the read of the links it leads to
  // (the connection reads its own open batch), with no commit forced.
  impl_->batch.write("relink_fetched", 1, [&] {
    links.clear();
    for (SQLite::Statement* lower : {&impl_->lower_done_row, &impl_->lower_page}) {
      StatementUse use(*lower);
      lower->bind(1, entry.url);
      lower->bind(2, entry.depth);
      if (lower == &impl_->lower_done_row)
        bind_text(*lower, 3, entry.parent_url);
      lower->exec();
    }
    StatementUse use(impl_->followed_links);
    impl_->followed_links.bind(1, entry.url);
    while (impl_->followed_links.executeStep())
      links.push_back(column_text(impl_->followed_links.getColumn(0)));
  });
  return links;
}

std::int64_t CrawlStore::requeue_fetched_before(std::int64_t cutoff_ms) {
  std::int64_t changed = 0;
  impl_->batch.write("requeue_fetched_before", 1, [&] {
    StatementUse use(impl_->requeue_stale);
    impl_->requeue_stale.bind(1, cutoff_ms);
    changed = impl_->requeue_stale.exec();
  });
  impl_->batch.flush("requeue_fetched_before");
  return changed;
}

void CrawlStore::settle_frontier(const std::string& url, FrontierState state) {
  settle_frontier(std::vector<std::string>{url}, state);
}

void CrawlStore::settle_frontier(const std::vector<std::string>& urls, FrontierState state) {
  if (urls.empty())
    return;
  impl_->batch.write("settle_frontier", urls.size(), [&] { impl_->settle_rows(urls, state); });
}

void CrawlStore::set_revisit_settings(const RevisitSettings& settings) {
  if (settings.revisit_after_ms > 0)
    impl_->revisit.emplace(settings);
  else
    impl_->revisit.reset();
}

std::int64_t CrawlStore::requeue_due(std::int64_t now_ms, std::int64_t revisit_after_ms) {
  std::int64_t changed = 0;
  impl_->batch.write("requeue_due", 1, [&] {
    StatementUse use(impl_->requeue_due_rows);
    impl_->requeue_due_rows.bind(1, now_ms);
    impl_->requeue_due_rows.bind(2, revisit_after_ms);
    changed = impl_->requeue_due_rows.exec();
  });
  impl_->batch.flush("requeue_due");
  return changed;
}

PageChangeCounts CrawlStore::change_counts(std::int64_t run_id) {
  return impl_->batch.read("change_counts", [&] { return impl_->change_counts(run_id); });
}

std::vector<FrontierEntry> CrawlStore::load_due(std::int64_t now_ms, std::int64_t revisit_after_ms,
                                                std::size_t limit) {
  return impl_->batch.read("load_due", [&] { return impl_->due_rows(now_ms, revisit_after_ms, limit); });
}

std::vector<FrontierEntry> CrawlStore::load_due_by_lastmod(const std::vector<FrontierEntry>& offered,
                                                           std::int64_t now_ms) {
  return impl_->batch.read("load_due_by_lastmod", [&] {
    std::vector<FrontierEntry> rows;
    if (!impl_->revisit)
      return rows;
    auto& q = impl_->select_fetched;
    for (const auto& candidate : offered) {
      if (candidate.lastmod_ms <= 0)
        continue;
      StatementUse use(q);
      q.bind(1, candidate.url);
      if (!q.executeStep())
        continue;
      const auto fetched_at = q.getColumn(kFrontierEntryColumnCount);
      const FetchHistory history{fetched_at.isNull() ? -1 : fetched_at.getInt64(),
                                 q.getColumn(kFrontierEntryColumnCount + 1).getInt64()};
      if (!impl_->revisit->due_by_lastmod(history, candidate.lastmod_ms, now_ms))
        continue;
      FrontierEntry entry = frontier_entry_of(q);
      entry.lastmod_ms = candidate.lastmod_ms;
      rows.push_back(std::move(entry));
    }
    return rows;
  });
}

std::int64_t CrawlStore::current_run() const { return impl_->run_id; }

std::vector<FrontierEntry> CrawlStore::load_queued(std::int64_t from_seq, std::size_t limit) {
  return impl_->batch.read("load_queued", [&] { return impl_->queued_rows(from_seq, limit); });
}

ResumeState CrawlStore::load_resume_state() {
  return impl_->batch.read("load_resume_state", [&] { return impl_->resume_state(); });
}

FrontierResume CrawlStore::load_frontier_resume(const ResumeQuery& query) {
  FrontierResume out;
  switch (query.profile) {
    case CrawlProfile::site: out.site = load_resume_state(); break;
    case CrawlProfile::domains: out.domains = load_domain_resume(query.seed_host_key, query.max_crawls_per_node); break;
  }
  return out;
}

std::vector<std::string> CrawlStore::load_cookies() {
  return impl_->batch.read("load_cookies", [&] {
    std::vector<std::string> lines;
    SQLite::Statement q(impl_->db, "SELECT line FROM cookies ORDER BY rowid");
    while (q.executeStep())
      lines.push_back(q.getColumn(0).getString());
    return lines;
  });
}

void CrawlStore::save_cookies(const std::vector<std::string>& lines) {
  impl_->batch.write("save_cookies", 1, [&] {
    impl_->db.exec("DELETE FROM cookies");
    SQLite::Statement insert(impl_->db, "INSERT INTO cookies(line) VALUES(?1)");
    for (const auto& line : lines) {
      StatementUse use(insert);
      insert.bind(1, line);
      insert.exec();
    }
  });
}

void CrawlStore::record_page(const PageRow& page) {
  impl_->batch.write("record_page", 1, [&] {
    impl_->start_call();
    impl_->store_page(page);
  });
}

void CrawlStore::record_pages(const std::vector<PageRow>& pages) {
  if (pages.empty())
    return;
  impl_->batch.write("record_page", pages.size(), [&] {
    impl_->start_call();
    for (const auto& page : pages)
      impl_->store_page(page);
  });
}

void CrawlStore::record_dead_letter(const DeadLetterRow& row) {
  impl_->batch.write("record_dead_letter", 1, [&] { impl_->insert_dead_letter_row(row); });
}

RedriveReport CrawlStore::redrive_dead_letters(const RedriveFilter& filter) {
  constexpr const char* operation = "redrive_dead_letters";
  impl_->batch.flush(operation);
  RedriveReport report;
  impl_->batch.write(operation, 1, [&] { report = impl_->redrive(filter); });
  // The letters' marks and their rows commit together.
  impl_->batch.flush(operation);
  return report;
}

void CrawlStore::park_frontier(const std::vector<FrontierRefusal>& parked) {
  if (parked.empty())
    return;
  impl_->batch.write("park_frontier", parked.size(), [&] { impl_->park_rows(parked); });
}

void CrawlStore::write_frontier_changes(const FrontierChanges& c) {
  const std::size_t ops =
    c.added.size() + c.requeued.size() + c.done.size() + c.failed.size() + c.refused.size() + c.parked.size();
  if (ops == 0)
    return;
  impl_->batch.write("write_frontier_changes", ops, [&] {
    impl_->insert_frontier_rows(c.added);
    impl_->requeue_rows(c.requeued);
    impl_->settle_rows(c.done, FrontierState::done);
    impl_->settle_rows(c.failed, FrontierState::failed);
    impl_->refuse_rows(c.refused);
    impl_->park_rows(c.parked);
  });
}

std::int64_t CrawlStore::requeue_parked() {
  std::int64_t changed = 0;
  impl_->batch.write("requeue_parked", 1, [&] {
    StatementUse use(impl_->requeue_parked_rows);
    changed = impl_->requeue_parked_rows.exec();
  });
  impl_->batch.flush("requeue_parked");
  return changed;
}

// Run rows are written through: they are rare, and a run's boundaries
// should be on disk even if the process dies before the next flush.
std::int64_t CrawlStore::begin_run(std::int64_t started_at_ms, const std::string& seeds_json) {
  std::int64_t run_id = 0;
  impl_->batch.write("begin_run", 1, [&] {
    // link_targets, "which pages link to this URL", is not kept: kept up to
    // date page by page it cost more than everything else the store does
    // (every page adds ~30 entries at random places of a table far larger
    // than the page cache), and built again in one sorted pass at each
    // run's end it still cost a seventh of a crawl's CPU, for the page
    // graph's exports alone (docs/performance.md). A domains resume builds
    // it for its one read and drops it; a file from before keeps one until
    // here.
    impl_->link_to_host.reset();
    impl_->db.exec("DROP TABLE IF EXISTS link_targets");
    StatementUse use(impl_->insert_run);
    impl_->insert_run.bind(1, started_at_ms);
    impl_->insert_run.bind(2, seeds_json);
    impl_->insert_run.exec();
    run_id = impl_->db.getLastInsertRowid();
  });
  impl_->run_id = run_id;
  impl_->batch.flush("begin_run");
  return run_id;
}

void CrawlStore::end_run(std::int64_t run_id, std::int64_t ended_at_ms, const std::string& reason) {
  impl_->batch.write("end_run", 1, [&] {
    StatementUse use(impl_->finish_run);
    impl_->finish_run.bind(1, run_id);
    impl_->finish_run.bind(2, ended_at_ms);
    bind_text(impl_->finish_run, 3, reason);
    impl_->finish_run.exec();
    const PageChangeCounts counts = impl_->change_counts(run_id);
    StatementUse use_counts(impl_->finish_run_counts);
    impl_->finish_run_counts.bind(1, run_id);
    impl_->finish_run_counts.bind(2, counts.new_pages);
    impl_->finish_run_counts.bind(3, counts.changed);
    impl_->finish_run_counts.bind(4, counts.unchanged);
    impl_->finish_run_counts.bind(5, counts.gone);
    impl_->finish_run_counts.exec();
    // A page that changed or went away may leave a body no page names.
    if (counts.changed > 0 || counts.gone > 0)
      impl_->db.exec(
        "DELETE FROM bodies WHERE content_digest NOT IN "
        "(SELECT content_digest FROM pages WHERE content_digest IS NOT NULL)");
  });
  impl_->batch.flush("end_run");
}

StoreSummary CrawlStore::summary(std::int64_t since_ms, const std::vector<std::string>& seed_urls) {
  return impl_->batch.read("summary", [&] { return impl_->summarize(since_ms, seed_urls); });
}

void CrawlStore::flush() { impl_->batch.flush("flush"); }

std::size_t CrawlStore::pending_ops() const { return impl_->batch.pending(); }

}  // namespace actorcrawl
