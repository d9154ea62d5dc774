#!/usr/bin/env python3
"""Deterministic synthetic web for the end-to-end benchmarks.

Writes H hosts x P pages of realistic HTML (title, meta description,
paragraphs, ~L links a page) into OUT/hosts/<ip>/, one directory per host,
to be served by nginx on <ip>:<port> (127.0.0.1 .. 127.0.0.H).

Link mix of a page: the host's home, two "tree" children (so every page of
a host is reachable within log2(P) hops of its root), then mostly same-host
pages, some pages of the other bench hosts and, now and then, a link to an
off-site host (loopback addresses 127.0.0.H+1 .. H+OFFSITE, out of scope for
every crawler: the runner serves them with an access log to prove nobody
fetched them). The first host's home page links to every host's home, and
every home links to the next host's home, so everything is reachable from
the one seed http://127.0.0.1:<port>/.

Traps, reachable but bounded:
  * a calendar on the first host: /calendar/?date=YYYY-MM-DD (served by an
    nginx rewrite to calendar/<date>.html), each day linking to the previous
    and next day and month, CALENDAR_DAYS days in all;
  * a relative-link loop on the second host: /loop/ links to "more/", which
    the server answers with the same page up to LOOP_DEPTH levels deep.
Crawlers without trap defences still terminate because the server bounds
both; both are larger than actorcrawl's default limits
(max_query_variants_per_path 100, max_repeated_path_segments 3).

Also written:
  OUT/urls.txt   every in-scope page meant to be reached (the H x P pages and
                 the two trap entry pages), one URL a line: the coverage basis
  OUT/web.json   the parameters and the facts the runner needs

Standard library only; the same arguments always give the same bytes.
"""
import argparse
import datetime
import json
import os
import random
import sys

WORDS = """
time year people way day man thing woman life child world school state family
student group country problem hand part place case week company system program
question work government number night point home water room mother area money
story fact month lot right study book eye job word business issue side kind head
house service friend father power hour game line end member law car city
community name president team minute idea kid body information back parent face
others level office door health person art war history party result change
morning reason research girl guy moment air teacher force education foot boy age
policy process music market sense nation plan college interest death experience
effect use class control care field development role effort rate heart drug show
leader light voice wife police mind price report decision son view relationship
town road arm difference value building action model season society tax director
position player record paper space ground form event official matter center couple
site project activity star table need court oil situation cost industry figure
street image phone data picture practice piece land product doctor wall patient
worker news test movie north love support technology step baby computer type
attention film tree source organization hair window evidence population truth
garden river bridge harbor valley station library museum market orchard meadow
""".split()

VERBS = """
builds carries changes collects covers creates describes develops draws explains
finds follows gathers holds improves includes keeps leads makes moves offers opens
plans presents produces provides reaches records remains reports returns serves
shows starts studies supports takes teaches tells tracks turns visits writes
""".split()

ADJECTIVES = """
ancient bright careful central common complete quiet curious distant early famous
final foreign gentle golden great hidden honest huge local main modern narrow
natural northern open original patient popular practical private public rare
recent regional rural simple small social special steady strong sudden typical
urban useful usual various warm western whole wide young
""".split()


def sentence(rng):
    n = rng.randint(6, 16)
    words = []
    for i in range(n):
        r = rng.random()
        if i == 1:
            words.append(rng.choice(VERBS))
        elif r < 0.3:
            words.append(rng.choice(ADJECTIVES))
        else:
            words.append(rng.choice(WORDS))
    s = " ".join(words)
    return s[0].upper() + s[1:] + rng.choice([".", ".", ".", "!", "?"])


def title_words(rng, n):
    return " ".join(w.capitalize() for w in
                    (rng.choice(ADJECTIVES if i == 0 else WORDS) for i in range(n)))


class Web:
    def __init__(self, a):
        self.a = a
        self.hosts = ["127.0.0.%d" % (i + 1) for i in range(a.hosts)]
        self.offsite = ["127.0.0.%d" % (a.hosts + 1 + i) for i in range(a.offsite)]
        self.port = a.port
        rng = random.Random(a.seed)
        # A pool of sentences: pages are composed from it (fast, deterministic).
        self.sentences = [sentence(rng) for _ in range(4000)]
        self.calendar_host = self.hosts[0] if a.calendar_days > 0 else None
        self.loop_host = (self.hosts[1] if len(self.hosts) > 1 else self.hosts[0]) \
            if a.loop_depth > 0 else None
        self.cal_start = datetime.date(2024, 1, 1)
        self.cal_entry = self.cal_start + datetime.timedelta(days=min(59, max(0, a.calendar_days - 1)))

    def origin(self, host):
        return "http://%s:%d" % (host, self.port)

    @staticmethod
    def page_path(k):
        return "/" if k == 0 else "/p/%d.html" % k

    def href_same_host(self, rng, from_k, to_k):
        """A same-host link, spelled the ways real pages spell them."""
        if to_k == 0:
            return "/" if rng.random() < 0.7 else "./" if from_k == 0 else "../"
        r = rng.random()
        if from_k == 0:
            return "p/%d.html" % to_k if r < 0.6 else "/p/%d.html" % to_k
        if r < 0.5:
            return "%d.html" % to_k
        if r < 0.85:
            return "/p/%d.html" % to_k
        if r < 0.95:
            return "./%d.html#s%d" % (to_k, rng.randint(1, 5))
        return "../p/%d.html" % to_k

    def page(self, h_index, k):
        a = self.a
        host = self.hosts[h_index]
        rng = random.Random("%d/%s/%d" % (a.seed, host, k))
        site_name = "%s Site %d" % (title_words(random.Random("%d/%s" % (a.seed, host)), 2), h_index + 1)
        title = "%s - %s" % (title_words(rng, rng.randint(2, 5)), site_name)
        desc = " ".join(rng.choice(self.sentences) for _ in range(2))
        links = []  # (href, text)
        P = a.pages
        # Structure: home, the tree children, the next host's home (on homes).
        if k != 0:
            links.append((self.href_same_host(rng, k, 0), "Home"))
        for child in (2 * k + 1, 2 * k + 2):
            if child < P:
                links.append((self.href_same_host(rng, k, child), title_words(rng, 2)))
        if k == 0 and len(self.hosts) > 1:
            nxt = self.hosts[(h_index + 1) % len(self.hosts)]
            links.append((self.origin(nxt) + "/", "Next site"))
        if host == self.calendar_host and k in (0, 1, 2):
            links.append(("/calendar/?date=%s" % self.cal_entry.isoformat(), "Events calendar"))
        if host == self.loop_host and k in (0, 3):
            links.append(("/loop/", "Archive"))
        n_links = max(len(links), int(round(a.links * rng.uniform(0.8, 1.2))))
        while len(links) < n_links:
            r = rng.random()
            if r < a.offsite_share and self.offsite:
                off = rng.choice(self.offsite)
                links.append(("%s/%s/%d.html" % (self.origin(off), rng.choice(WORDS), rng.randint(1, 999)),
                              "elsewhere"))
            elif r < a.offsite_share + a.cross_share and len(self.hosts) > 1:
                o = rng.randrange(len(self.hosts) - 1)
                other = self.hosts[o + 1 if o >= h_index else o]
                links.append((self.origin(other) + self.page_path(rng.randrange(P)), title_words(rng, 2)))
            else:
                links.append((self.href_same_host(rng, k, rng.randrange(P)), title_words(rng, rng.randint(1, 3))))
        rng.shuffle(links)
        directory = []
        if h_index == 0 and k == 0:
            directory = [(self.origin(x) + "/", "Site %d" % (i + 1)) for i, x in enumerate(self.hosts) if i > 0]
        return self.render(rng, title, desc, site_name, links, directory)

    def render(self, rng, title, desc, site_name, links, directory):
        target = int(self.a.page_kb * 1024 * rng.uniform(0.75, 1.25))
        head = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                '<title>%s</title>\n<meta name="description" content="%s">\n</head>\n<body>\n'
                '<header><p class="brand">%s</p></header>\n<main>\n<h1>%s</h1>\n'
                % (title, desc, site_name, title.split(" - ")[0]))
        tail = '</main>\n<footer><p>&copy; %s. %s</p></footer>\n</body>\n</html>\n' % (
            site_name, rng.choice(self.sentences))
        parts = [head]
        size = len(head) + len(tail)
        if directory:
            block = '<ul class="directory">\n' + "".join(
                '<li><a href="%s">%s</a></li>\n' % d for d in directory) + "</ul>\n"
            parts.append(block)
            size += len(block)
        # Spread the links over the paragraphs; keep going until the size is reached.
        n_par = max(1, (target - size) // 700)
        per_par = [[] for _ in range(n_par)]
        for i, l in enumerate(links):
            per_par[i % n_par].append(l)
        i = 0
        while i < n_par or size < target:
            sents = [rng.choice(self.sentences) for _ in range(rng.randint(4, 9))]
            ls = per_par[i] if i < n_par else []
            for href, text in ls:
                pos = rng.randrange(len(sents) + 1)
                sents.insert(pos, '<a href="%s">%s</a>' % (href, text))
            if i % 5 == 4:
                p = '<h2 id="s%d">%s</h2>\n<p>%s</p>\n' % (i // 5 + 1, title_words(rng, 3), " ".join(sents))
            else:
                p = "<p>%s</p>\n" % " ".join(sents)
            parts.append(p)
            size += len(p)
            i += 1
            if i > 10000:
                break
        parts.append(tail)
        return "".join(parts)

    def calendar_page(self, day_index):
        d = self.cal_start + datetime.timedelta(days=day_index)
        rng = random.Random("%d/calendar/%d" % (self.a.seed, day_index))
        links = [("/", "Home")]
        for delta, text in ((-1, "Previous day"), (1, "Next day"), (-30, "Previous month"), (30, "Next month")):
            j = day_index + delta
            if 0 <= j < self.a.calendar_days:
                links.append(("?date=%s" % (self.cal_start + datetime.timedelta(days=j)).isoformat(), text))
        body = "".join("<p>%s</p>\n" % " ".join(rng.choice(self.sentences) for _ in range(3)) for _ in range(3))
        return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<title>Events on %s</title>\n<meta name="description" content="What happens on %s.">\n'
                '</head>\n<body>\n<h1>Events on %s</h1>\n<nav>%s</nav>\n%s</body>\n</html>\n'
                % (d.isoformat(), d.isoformat(), d.isoformat(),
                   " | ".join('<a href="%s">%s</a>' % l for l in links), body))

    def loop_page(self):
        rng = random.Random("%d/loop" % self.a.seed)
        return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<title>Archive</title>\n<meta name="description" content="Older posts.">\n</head>\n'
                '<body>\n<h1>Archive</h1>\n<p>%s <a href="more/">More posts</a> or go '
                '<a href="/">home</a>.</p>\n</body>\n</html>\n' % rng.choice(self.sentences))

    def write(self, out):
        a = self.a
        total_bytes = 0
        urls = []
        for h_index, host in enumerate(self.hosts):
            root = os.path.join(out, "hosts", host)
            os.makedirs(os.path.join(root, "p"), exist_ok=True)
            with open(os.path.join(root, "robots.txt"), "w") as f:
                f.write("User-agent: *\nDisallow:\n")
            for k in range(a.pages):
                html = self.page(h_index, k).encode("utf-8")
                total_bytes += len(html)
                path = os.path.join(root, "index.html" if k == 0 else os.path.join("p", "%d.html" % k))
                with open(path, "wb") as f:
                    f.write(html)
                urls.append(self.origin(host) + self.page_path(k))
            if host == self.calendar_host:
                os.makedirs(os.path.join(root, "calendar"), exist_ok=True)
                for j in range(a.calendar_days):
                    d = self.cal_start + datetime.timedelta(days=j)
                    with open(os.path.join(root, "calendar", "%s.html" % d.isoformat()), "w") as f:
                        f.write(self.calendar_page(j))
                urls.append("%s/calendar/?date=%s" % (self.origin(host), self.cal_entry.isoformat()))
            if host == self.loop_host:
                os.makedirs(os.path.join(root, "loop"), exist_ok=True)
                with open(os.path.join(root, "loop", "index.html"), "w") as f:
                    f.write(self.loop_page())
                urls.append("%s/loop/" % self.origin(host))
        for off in self.offsite:
            root = os.path.join(out, "hosts", off)
            os.makedirs(root, exist_ok=True)
            with open(os.path.join(root, "index.html"), "w") as f:
                f.write("<!DOCTYPE html><title>off-site</title><p>Not part of the bench web.</p>\n")
        with open(os.path.join(out, "urls.txt"), "w") as f:
            f.write("\n".join(urls) + "\n")
        meta = {
            "seed": a.seed, "hosts": self.hosts, "offsite_hosts": self.offsite, "port": self.port,
            "pages_per_host": a.pages, "page_kb": a.page_kb, "links": a.links,
            "seed_url": self.origin(self.hosts[0]) + "/",
            "in_scope_pages": len(urls), "html_bytes": total_bytes,
            "calendar": {"host": self.calendar_host, "days": a.calendar_days,
                         "start": self.cal_start.isoformat(), "entry": self.cal_entry.isoformat()},
            "loop": {"host": self.loop_host, "depth": a.loop_depth},
        }
        with open(os.path.join(out, "web.json"), "w") as f:
            json.dump(meta, f, indent=1)
        return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory to write (created)")
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--pages", type=int, default=200, help="pages per host, home page included")
    ap.add_argument("--page-kb", type=float, default=16.0, help="mean page size in KiB (+-25%%)")
    ap.add_argument("--links", type=int, default=30, help="mean links per page (+-20%%)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--offsite", type=int, default=3, help="off-site (out of scope) hosts linked to")
    ap.add_argument("--offsite-share", type=float, default=0.01, help="share of links going off-site")
    ap.add_argument("--cross-share", type=float, default=0.15, help="share of links to other bench hosts")
    ap.add_argument("--calendar-days", type=int, default=150, help="calendar trap size (0: none)")
    ap.add_argument("--loop-depth", type=int, default=8, help="relative-link loop depth (0: none)")
    a = ap.parse_args(argv)
    if a.hosts < 1 or a.pages < 1:
        ap.error("--hosts and --pages must be at least 1")
    if a.hosts + a.offsite > 254:
        ap.error("--hosts + --offsite must be at most 254 (addresses 127.0.0.1 .. 127.0.0.254)")
    meta = Web(a).write(a.out)
    print("synthweb: %d hosts x %d pages (%.1f MiB of HTML), %d in-scope URLs in %s" % (
        len(meta["hosts"]), a.pages, meta["html_bytes"] / 1048576.0, meta["in_scope_pages"],
        os.path.join(a.out, "urls.txt")), file=sys.stderr)


if __name__ == "__main__":
    main()
