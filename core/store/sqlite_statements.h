// How the store uses a prepared SQLite statement: absent values are NULL
// (never '' or 0, so no query has to test for both), a statement is reset
// after each use even when the use throws, and NULL text reads as "".
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <string>

namespace actorcrawl {

inline void bind_text(SQLite::Statement& s, int index, const std::string& value) {
  if (value.empty())
    s.bind(index);
  else
    s.bind(index, value);
}

// Text SQLite reads where it lies instead of copying it: `value` must
// outlive the statement's execution, so a temporary is refused (below).
// Empty text is NULL, as with bind_text.
inline void bind_text_in_place(SQLite::Statement& s, int index, const std::string& value) {
  if (value.empty())
    s.bind(index);
  else
    s.bindNoCopy(index, value);
}
void bind_text_in_place(SQLite::Statement&, int, const std::string&&) = delete;

// The same for text that is never NULL (a URL, a kind): '' stays ''.
inline void bind_in_place(SQLite::Statement& s, int index, const std::string& value) { s.bindNoCopy(index, value); }
void bind_in_place(SQLite::Statement&, int, const std::string&&) = delete;

inline void bind_nonzero(SQLite::Statement& s, int index, std::int64_t value) {
  if (value == 0)
    s.bind(index);
  else
    s.bind(index, value);
}

inline std::string column_text(const SQLite::Column& c) { return c.isNull() ? std::string() : c.getString(); }

// Readies a cached statement for one use and resets it on scope exit: a
// statement left mid-step would keep a read open and refuse its next
// execution.
class StatementUse {
 public:
  explicit StatementUse(SQLite::Statement& s) : s_(s) {
    s_.tryReset();
    s_.clearBindings();
  }
  ~StatementUse() { s_.tryReset(); }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;

 private:
  SQLite::Statement& s_;
};

// Executes a statement that returns no rows.
inline void run(SQLite::Statement& s) {
  StatementUse use(s);
  s.exec();
}

}  // namespace actorcrawl
