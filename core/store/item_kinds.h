// The kinds of items a crawl database holds (extraction rules' and
// processors' names), read by a skip scan of idx_items_kind: the next kind
// after the last one, one index seek each, rather than a DISTINCT that
// reads every item. Shared by the service's reader and the export.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstddef>
#include <string>
#include <vector>

namespace actorcrawl {

// At most `limit` kinds, sorted. The database must have the items table.
std::vector<std::string> item_kinds(SQLite::Database& db, std::size_t limit);

}  // namespace actorcrawl
