// Kept bodies (keep_bodies) that a worker node writes beside itself rather
// than send to the coordinator: one SQLite file a node,
// <bodies_dir>/actorcrawl-bodies-<node>.db, whose one table is the crawl
// database's `bodies` (content_digest, encoding, size, body).
//
// Why: a kept body is 7 KB of the 10 KB a page sends over the link, and the
// coordinator's one store writes every page of the cluster; a body written
// where it was fetched costs the coordinator nothing (docs/performance.md,
// "Bodies kept where they were fetched"). A body is named by its content
// digest, which the page's row still carries, so a file serves any crawl
// database whose pages name its digests: files of many nodes and runs can
// be gathered into one directory, as WARC files are, and the readers
// (`actorcrawl extract`, `actorcrawl parse --db`, core/store/kept_pages.h)
// look there for what the database itself does not hold.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/crawl/records.h"

namespace SQLite {
class Statement;
}

namespace actorcrawl {

// The body in the row `s` stands on, from three columns of the `bodies`
// table from `first` on: encoding, size, body. The one way a crawl
// database's reader and a bodies file's read a body.
KeptBody kept_body_at(SQLite::Statement& s, int first);

// The file the node named `node` (file-safe already: letters, digits, '.',
// '_', '-') keeps its bodies in, within `dir`.
std::string node_bodies_path(const std::string& dir, const std::string& node);

class NodeBodiesWriter {
 public:
  // Creates `dir` and the file as needed; an existing file is added to.
  // Throws StoreError (a directory that cannot be made, a file that is not
  // a bodies file).
  NodeBodiesWriter(const std::string& dir, const std::string& node);
  ~NodeBodiesWriter();
  NodeBodiesWriter(const NodeBodiesWriter&) = delete;
  NodeBodiesWriter& operator=(const NodeBodiesWriter&) = delete;

  // Writes the kept body of each of `rows` that carries one, in one
  // transaction committed before it returns (a kill -9 after it loses
  // none), and takes the bodies out of the rows: a row that reaches the
  // coordinator names its body by content_digest only. Safe to call from
  // several threads (a node's parse lanes). Throws StoreError, the rows
  // left as they were.
  void keep(std::vector<PageRow>& rows);

  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The bodies files of a directory, read only: where a reader looks for a
// body its crawl database does not hold.
class NodeBodiesReader {
 public:
  // Every actorcrawl-bodies-*.db in `dir`; none when `dir` is "" or is not
  // there. Throws StoreError for such a file that is not a bodies file.
  explicit NodeBodiesReader(const std::string& dir);
  ~NodeBodiesReader();
  NodeBodiesReader(const NodeBodiesReader&) = delete;
  NodeBodiesReader& operator=(const NodeBodiesReader&) = delete;

  bool empty() const;
  // The body kept for `digest` in any of the files.
  std::optional<KeptBody> find(const std::string& digest);
  bool holds(const std::string& digest);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
