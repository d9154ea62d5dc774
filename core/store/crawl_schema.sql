-- The crawl database (core/store/crawl_store.h writes it, crawl_reader.h
-- reads it; docs/schema.md explains every table). Applied on every open, so
-- each statement must be idempotent. A change that is not: bump
-- kCrawlSchemaVersion in crawl_schema.h and migrate in open_crawl_database.
--
-- nodes, edges and their indexes are the domain-graph design the project
-- started from, kept column for column so that tools that read the domain
-- graph keep working; idx_nodes_domain duplicates the UNIQUE index for the
-- same reason.
CREATE TABLE IF NOT EXISTS nodes (
    node_id INTEGER PRIMARY KEY AUTOINCREMENT,
    domain_name TEXT UNIQUE NOT NULL,
    description TEXT,
    crawl_count INTEGER DEFAULT 0,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS edges (
    edge_id INTEGER PRIMARY KEY AUTOINCREMENT,
    from_node_id INTEGER NOT NULL,
    to_node_id INTEGER NOT NULL,
    weight INTEGER DEFAULT 1,
    FOREIGN KEY (from_node_id) REFERENCES nodes(node_id),
    FOREIGN KEY (to_node_id) REFERENCES nodes(node_id),
    UNIQUE(from_node_id, to_node_id)
);
CREATE INDEX IF NOT EXISTS idx_nodes_domain ON nodes(domain_name);
CREATE INDEX IF NOT EXISTS idx_edges_from ON edges(from_node_id);
CREATE INDEX IF NOT EXISTS idx_edges_to ON edges(to_node_id);

CREATE TABLE IF NOT EXISTS pages (
    page_id INTEGER PRIMARY KEY,
    url TEXT UNIQUE NOT NULL,
    node_id INTEGER REFERENCES nodes(node_id),
    depth INTEGER,
    status_code INTEGER,
    content_type TEXT,
    title TEXT,
    description TEXT,
    bytes INTEGER,
    fetch_ms INTEGER,
    fetched_at INTEGER,
    error TEXT,
    final_url TEXT,
    redirect_chain TEXT,
    truncated INTEGER,
    canonical_url TEXT,
    attempts INTEGER,
    robots_directives TEXT,
    links_dropped INTEGER,
    -- Version 6, freshness: the last answer's validators as received, the
    -- digest of its body (content_digest: "sha1:" + base32) and, with
    -- adaptive_revisit, the page's own revisit interval.
    etag TEXT,
    last_modified TEXT,
    content_digest TEXT,
    revisit_interval_ms INTEGER,
    link_hosts TEXT
    -- Version 7, link_hosts: the hosts this page's links counted as edges
    -- of the domain graph (host keys, space-separated), so that a later
    -- fetch answered 304 Not Modified counts them again without the body.
    , charset TEXT
    -- Version 9, charset: the one the response named, for its kept body.
    -- (Each column's comment follows it, and the comma leads the next
    -- column: SQLite's own ALTER TABLE DROP COLUMN cannot drop a last
    -- column that a comment precedes.)
);

-- Version 9: the bodies a crawl kept (keep_bodies), once per content
-- digest (pages.content_digest names a page's), so that `actorcrawl
-- extract` runs processors again with no request. encoding: deflate (raw
-- DEFLATE, RFC 1951) or identity; size: bytes decoded. A body no page
-- names any more is removed when a run ends.
CREATE TABLE IF NOT EXISTS bodies (
    content_digest TEXT PRIMARY KEY,
    encoding TEXT NOT NULL,
    size INTEGER NOT NULL,
    body BLOB NOT NULL
);
-- Version 10: a page's links, one row a page: `urls` a JSON array of the
-- link targets in document order, `flags` one digit a link (1: nofollow,
-- 2: followed). One row a page costs SQLite a third of what a row a link
-- did (docs/performance.md). The view `links` reads them as rows, the
-- columns of the table it replaced, for every reader.
CREATE TABLE IF NOT EXISTS page_links (
    page_id INTEGER PRIMARY KEY,  -- the page's pages.page_id
    urls TEXT NOT NULL,
    flags TEXT NOT NULL
);
CREATE VIEW IF NOT EXISTS links(from_page_id, to_url, nofollow, position, followed) AS
    SELECT l.page_id, j.value, CAST(substr(l.flags, j.key + 1, 1) AS INTEGER) & 1, j.key,
           CAST(substr(l.flags, j.key + 1, 1) AS INTEGER) >> 1
    FROM page_links l, json_each(l.urls) j;

-- Version 9: the crawl's cookie jar between runs (cookies: true), one
-- Netscape cookies.txt line a cookie, as libcurl lists them. The site's
-- secrets for the crawl's session: no export reads this table.
CREATE TABLE IF NOT EXISTS cookies (
    line TEXT NOT NULL
);

-- What processors took from a page (version 5): an extraction rule's item
-- (kind = the rule's name) or an external processor's (kind = its name), a
-- JSON object each. Written in the page's transaction, and replaced with
-- its links when the page is fetched again.
CREATE TABLE IF NOT EXISTS items (
    item_id INTEGER PRIMARY KEY,
    page_id INTEGER NOT NULL REFERENCES pages(page_id),
    kind TEXT NOT NULL,
    item TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_items_page ON items(page_id);
CREATE INDEX IF NOT EXISTS idx_items_kind ON items(kind, item_id);

-- A processor that could not process a page (version 5): the page is kept
-- with what the others found; reasons in docs/plugins.md.
CREATE TABLE IF NOT EXISTS processor_failures (
    page_id INTEGER NOT NULL REFERENCES pages(page_id),
    processor TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT,
    failed_at INTEGER
);
CREATE INDEX IF NOT EXISTS idx_processor_failures_page ON processor_failures(page_id);

-- The CHECKs here and in page_changes are comparisons, not IN lists: SQLite
-- checks an IN list of more than two values through a temporary b-tree it
-- builds on every insert or update (three a crawled page, a tenth of the
-- store's time). Files made before keep their IN lists, which accept the
-- same values.
CREATE TABLE IF NOT EXISTS frontier (
    seq INTEGER PRIMARY KEY,
    url TEXT UNIQUE NOT NULL,
    depth INTEGER NOT NULL,
    parent_url TEXT,
    state INTEGER NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4),
    discovered_at INTEGER,
    settled_at INTEGER,
    refusal TEXT,
    lastmod INTEGER
);
CREATE INDEX IF NOT EXISTS idx_frontier_state ON frontier(state, seq);

CREATE TABLE IF NOT EXISTS dead_letters (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    depth INTEGER,
    reason TEXT NOT NULL,
    detail TEXT,
    attempts INTEGER,
    status_code INTEGER,
    failed_at INTEGER,
    redriven INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS idx_dead_letters_pending
    ON dead_letters(id) WHERE redriven = 0;

CREATE TABLE IF NOT EXISTS robots_txt (
    host TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    status_code INTEGER,
    outcome TEXT NOT NULL,
    crawl_delay_ms INTEGER,
    sitemaps TEXT,
    fetched_at INTEGER
);

-- One row per sitemap document (docs/sitemaps.md): status fetched, failed,
-- redirected or refused, with the reason; a later run does not fetch a
-- fetched or redirected one again.
CREATE TABLE IF NOT EXISTS sitemaps (
    url TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    urls_found INTEGER,
    urls_accepted INTEGER,
    fetched_at INTEGER,
    named_by TEXT
);

CREATE TABLE IF NOT EXISTS crawl_runs (
    run_id INTEGER PRIMARY KEY,
    started_at INTEGER,
    ended_at INTEGER,
    termination_reason TEXT,
    seeds TEXT,
    -- Version 6: what the run's fetches found (page_changes), written when
    -- the run ends; NULL for a run that never ended (count page_changes).
    pages_new INTEGER,
    pages_changed INTEGER,
    pages_unchanged INTEGER,
    pages_gone INTEGER
);

-- Version 6: what each fetch of a page found compared with the stored page
-- (core/crawl/page_change.h): new, changed, unchanged or gone. Written in
-- the page's own transaction, so a change is recorded exactly when the page
-- row that shows it is committed.
CREATE TABLE IF NOT EXISTS page_changes (
    run_id INTEGER NOT NULL,
    url TEXT NOT NULL,
    change TEXT NOT NULL CHECK (change = 'new' OR change = 'changed' OR change = 'unchanged' OR change = 'gone'),
    at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_page_changes_run ON page_changes(run_id, change);
