// StorageActor: the only writer of the crawl's SQLite database. Writes
// arrive as messages and are batched by CrawlStore; a timer commits a batch
// that stays open longer than the flush interval, and every read commits
// first, so a reply never hides a write that came before the request.
#pragma once

#include <chrono>
#include <memory>

#include <caf/fwd.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

class CookieJar;
class CrawlEvents;
class CrawlStore;

// `events`, if set, hears of every page and dead letter written.
// `flush_interval`: how long a batch stays open at most (the configuration's
// storage_commit_interval, whose default lives there only).
// `cookies`, if set, is the crawl's cookie jar: written to the database
// with each run's end, for the next run to go on with.
storage_actor spawn_storage(caf::actor_system& sys, std::shared_ptr<CrawlStore> store,
                            std::shared_ptr<CrawlEvents> events, std::chrono::milliseconds flush_interval,
                            std::shared_ptr<const CookieJar> cookies = nullptr);

}  // namespace actorcrawl
