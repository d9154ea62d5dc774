#include "core/store/item_kinds.h"

namespace actorcrawl {

std::vector<std::string> item_kinds(SQLite::Database& db, std::size_t limit) {
  std::vector<std::string> kinds;
  SQLite::Statement first(db, "SELECT MIN(kind) FROM items");
  SQLite::Statement next(db, "SELECT MIN(kind) FROM items WHERE kind > ?1");
  SQLite::Statement* q = &first;
  while (kinds.size() < limit && q->executeStep() && !q->getColumn(0).isNull()) {
    kinds.push_back(q->getColumn(0).getString());
    next.reset();
    next.bind(1, kinds.back());
    q = &next;
  }
  return kinds;
}

}  // namespace actorcrawl
