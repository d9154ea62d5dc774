// The pages of a crawl database read back with their kept bodies
// (keep_bodies), for processors to run on again with no request: `actorcrawl
// extract` replaces their items, `actorcrawl parse --db` prints one. A body
// the database does not hold is looked for in the bodies files of worker
// nodes (core/store/node_bodies.h) in `bodies_dir`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/crawl/records.h"

namespace actorcrawl {

// A stored page as its processors saw it when it was fetched.
struct KeptPage {
  std::int64_t page_id = 0;
  std::string url;
  std::string final_url;
  std::int32_t depth = 0;
  std::int32_t status_code = 0;
  std::string content_type;
  std::string charset;
  std::string redirect_chain;     // JSON text, "" for none
  std::string robots_directives;  // "noindex" keeps no items
  std::string title;
  bool truncated = false;
  KeptBody body;  // encoding "" when the page's body was not kept
};

// Which of a page's items and processor failures a run replaces: all of
// them, or those of one kind (an extraction rule's items and `extract`'s
// failures about that rule, or an external processor's items and failures).
struct ItemsReplaced {
  std::optional<std::string> kind;
  // Kinds whose items stay whatever `kind` says: the external processors
  // that could not process the page this time (crashed, timed out), whose
  // earlier answer stands rather than none.
  std::vector<std::string> keep_kinds;

  bool covers(const ExtractedItem& item) const { return !kind || item.kind == *kind; }
  // An extraction rule's failures are `extract`'s, each naming its rule
  // first (core/extract/extraction_rules.cc): "rule 'NAME'...".
  bool covers(const ProcessorFailure& failure) const {
    return !kind || failure.processor == *kind ||
           (failure.processor == "extract" && failure.detail.rfind(rule_prefix(), 0) == 0);
  }
  std::string rule_prefix() const { return kind ? "rule '" + *kind + "'" : std::string{}; }
};

class DatabaseLock;

class KeptPages {
 public:
  enum class Access {
    read,     // a reader: no lock, nothing written; safe while a crawl writes
    rewrite,  // the database's one writer (DatabaseLock): items are replaced
  };
  // Throws DatabaseInUse (rewrite, another writer holds the database) or
  // StoreError (no such database, not one this build reads, a file in
  // `bodies_dir` that is not a bodies file).
  KeptPages(const std::string& db_path, Access access, const std::string& bodies_dir = "");
  ~KeptPages();
  KeptPages(const KeptPages&) = delete;
  KeptPages& operator=(const KeptPages&) = delete;

  // Up to `limit` pages after page `after` (page_id order) whose body was
  // kept; with `failed_only`, those with a processor failure recorded.
  std::vector<KeptPage> next_batch(std::int64_t after, std::size_t limit, bool failed_only);
  // Pages fetched with a body (no error, no redirect recorded as the page)
  // whose body is not kept: crawled without keep_bodies, or before it, or
  // kept by a worker node whose file is not in `bodies_dir`.
  std::int64_t pages_without_body();
  // The page stored for `url` (the requested URL, or else a page's final
  // URL), its body when kept.
  std::optional<KeptPage> find(const std::string& url);
  // The page's items and failures within `which` become `items` and
  // `failures`, in one transaction. Returns the items it held before.
  std::int64_t replace(std::int64_t page_id, const ItemsReplaced& which, const std::vector<ExtractedItem>& items,
                       const std::vector<ProcessorFailure>& failures);

 private:
  struct Impl;
  std::unique_ptr<DatabaseLock> lock_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
