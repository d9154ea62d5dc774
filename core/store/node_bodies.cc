#include "core/store/node_bodies.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <system_error>

#include "core/store/crawl_schema.h"
#include "core/store/sqlite_statements.h"
#include "core/store/store_error.h"

namespace actorcrawl {

namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr std::string_view kPrefix = "actorcrawl-bodies-";
constexpr std::string_view kSuffix = ".db";
// PRAGMA application_id of a bodies file ("acBD"): what tells it from a
// crawl database or any other SQLite file in the directory.
constexpr int kApplicationId = 0x61634244;

// The crawl database's `bodies` table, taken from its schema
// (crawl_schema.sql), so that a body reads the same from either.
std::string bodies_table_sql() {
  const std::string_view schema = crawl_schema_sql();
  const std::size_t begin = schema.find("CREATE TABLE IF NOT EXISTS bodies (");
  const std::size_t end = begin == std::string_view::npos ? begin : schema.find(");", begin);
  if (end == std::string_view::npos)
    throw SQLite::Exception("the crawl schema has no bodies table");
  return std::string{schema.substr(begin, end + 2 - begin)};
}

bool is_bodies_file(SQLite::Database& db) {
  return db.execAndGet("PRAGMA application_id").getInt() == kApplicationId;
}

SQLite::Database open_for_reading(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
  if (!is_bodies_file(db))
    throw SQLite::Exception("not a bodies file (no bodies file's application_id)");
  return db;
}

SQLite::Database open_for_writing(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX, kBusyTimeoutMs);
  if (!is_bodies_file(db)) {
    // A new file has no table yet; any other is someone else's.
    if (db.execAndGet("SELECT COUNT(*) FROM sqlite_master").getInt() != 0)
      throw SQLite::Exception("not a bodies file (another SQLite database)");
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  }
  // Durable against a kill of the process once committed, as the crawl
  // database is (core/store/crawl_schema.cc).
  db.execAndGet("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(bodies_table_sql());
  return db;
}

}  // namespace

std::string node_bodies_path(const std::string& dir, const std::string& node) {
  return (std::filesystem::path(dir) / (std::string{kPrefix} + node + std::string{kSuffix})).string();
}

KeptBody kept_body_at(SQLite::Statement& s, int first) {
  KeptBody out;
  out.encoding = column_text(s.getColumn(first));
  out.size = s.getColumn(first + 1).getInt64();
  const SQLite::Column blob = s.getColumn(first + 2);
  out.data.assign(static_cast<const char*>(blob.getBlob()), static_cast<std::size_t>(blob.getBytes()));
  return out;
}

struct NodeBodiesWriter::Impl {
  explicit Impl(const std::string& p)
      : path(p),
        db(open_for_writing(p)),
        insert(db, "INSERT OR IGNORE INTO bodies(content_digest, encoding, size, body) VALUES(?1, ?2, ?3, ?4)") {}
  std::string path;
  std::mutex mutex;
  SQLite::Database db;
  SQLite::Statement insert;
};

NodeBodiesWriter::NodeBodiesWriter(const std::string& dir, const std::string& node) {
  const std::string path = node_bodies_path(dir, node);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw StoreError("cannot make the bodies directory '" + dir + "': " + ec.message());
  try {
    impl_ = std::make_unique<Impl>(path);
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot keep bodies in '" + path + "': " + e.what());
  }
}

NodeBodiesWriter::~NodeBodiesWriter() = default;

const std::string& NodeBodiesWriter::path() const { return impl_->path; }

void NodeBodiesWriter::keep(std::vector<PageRow>& rows) {
  const bool any = std::any_of(rows.begin(), rows.end(), [](const PageRow& r) { return !r.body.encoding.empty(); });
  if (!any)
    return;
  {
    std::lock_guard<std::mutex> hold(impl_->mutex);
    try {
      SQLite::Transaction tx(impl_->db);
      for (const PageRow& row : rows) {
        if (row.body.encoding.empty())
          continue;
        StatementUse use(impl_->insert);
        impl_->insert.bind(1, row.content_digest);
        impl_->insert.bind(2, row.body.encoding);
        impl_->insert.bind(3, row.body.size);
        impl_->insert.bindNoCopy(4, row.body.data.data(), static_cast<int>(row.body.data.size()));
        impl_->insert.exec();
      }
      tx.commit();
    } catch (const SQLite::Exception& e) {
      throw StoreError("keeping bodies in '" + impl_->path + "' failed: " + e.what());
    }
  }
  for (PageRow& row : rows)
    row.body = {};
}

struct NodeBodiesReader::Impl {
  struct File {
    explicit File(const std::string& p)
        : path(p),
          db(open_for_reading(p)),
          body(db, "SELECT encoding, size, body FROM bodies WHERE content_digest = ?1"),
          held(db, "SELECT 1 FROM bodies WHERE content_digest = ?1") {}
    std::string path;
    SQLite::Database db;
    SQLite::Statement body, held;
  };
  std::vector<std::unique_ptr<File>> files;
};

NodeBodiesReader::NodeBodiesReader(const std::string& dir) : impl_(std::make_unique<Impl>()) {
  if (dir.empty())
    return;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > kPrefix.size() + kSuffix.size() && name.compare(0, kPrefix.size(), kPrefix) == 0 &&
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
      paths.push_back(entry.path().string());
  }
  if (ec)
    throw StoreError("cannot read the bodies directory '" + dir + "': " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    try {
      impl_->files.push_back(std::make_unique<Impl::File>(path));
    } catch (const SQLite::Exception& e) {
      throw StoreError("cannot read bodies from '" + path + "': " + e.what());
    }
  }
}

NodeBodiesReader::~NodeBodiesReader() = default;

bool NodeBodiesReader::empty() const { return impl_->files.empty(); }

std::optional<KeptBody> NodeBodiesReader::find(const std::string& digest) {
  for (auto& file : impl_->files) {
    try {
      StatementUse use(file->body);
      file->body.bind(1, digest);
      if (file->body.executeStep())
        return kept_body_at(file->body, 0);
    } catch (const SQLite::Exception& e) {
      throw StoreError("reading bodies from '" + file->path + "' failed: " + e.what());
    }
  }
  return std::nullopt;
}

bool NodeBodiesReader::holds(const std::string& digest) {
  for (auto& file : impl_->files) {
    try {
      StatementUse use(file->held);
      file->held.bind(1, digest);
      if (file->held.executeStep())
        return true;
    } catch (const SQLite::Exception& e) {
      throw StoreError("reading bodies from '" + file->path + "' failed: " + e.what());
    }
  }
  return false;
}

}  // namespace actorcrawl
