// The bundled demo web: a small botanical garden ("Actor Gardens"), the seed
// shop that supplies it and a gardener's journal, each on its own loopback
// host. It is meant to look like a real small site to someone watching a
// crawl, while still covering the cases a crawler must handle: cross-host
// links, a dead link, a non-HTML file, a redirect and an off-site link.
#include "demoweb/demo_web.h"

#include <string>
#include <vector>

namespace actorcrawl::demoweb {
namespace {

struct Link {
  std::string href;
  std::string text;
};

struct Page {
  std::string path;
  std::string nav_label;
  std::string title;
  std::string description;
  std::vector<std::string> paragraphs;
  std::vector<Link> links;  // beyond the site navigation
};

struct Site {
  std::string name;
  std::vector<Page> pages;
};

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string anchor(const Link& link) {
  return "<a href=\"" + escape_html(link.href) + "\">" + escape_html(link.text) + "</a>";
}

std::string render_nav(const Site& site) {
  std::string nav = "<nav>\n<ul>\n";
  for (const auto& page : site.pages) nav += "<li>" + anchor({page.path, page.nav_label}) + "</li>\n";
  return nav + "</ul>\n</nav>\n";
}

// "Page | Site", except where the page title already names the site.
std::string title_text(const Site& site, const Page& page) {
  if (page.title.find(site.name) != std::string::npos) return page.title;
  return page.title + " | " + site.name;
}

std::string render_page(const Site& site, const Page& page) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>" + escape_html(title_text(site, page)) + "</title>\n"
      "<meta name=\"description\" content=\"" + escape_html(page.description) + "\">\n"
      "</head>\n<body>\n<header><p class=\"site\">" + escape_html(site.name) + "</p></header>\n" +
      render_nav(site) + "<main>\n<h1>" + escape_html(page.title) + "</h1>\n";
  for (const auto& paragraph : page.paragraphs) html += "<p>" + escape_html(paragraph) + "</p>\n";
  if (!page.links.empty()) {
    html += "<h2>See also</h2>\n<ul>\n";
    for (const auto& link : page.links) html += "<li>" + anchor(link) + "</li>\n";
    html += "</ul>\n";
  }
  return html + "</main>\n<footer><p>&copy; " + escape_html(site.name) +
         "</p></footer>\n</body>\n</html>\n";
}

void serve_site(LoopbackWeb& web, const std::string& host_key, const Site& site) {
  for (const auto& page : site.pages) {
    Response response;
    response.body = render_page(site, page);
    web.route(host_key, page.path, response);
  }
}

Site gardens_site(const std::string& next_host_root) {
  return Site{
      "Actor Gardens",
      {
          {"/", "Home", "Welcome to Actor Gardens",
           "Actor Gardens is a walled botanical garden of quiet paths, glasshouses and "
           "independent plots that each tend themselves.",
           {"Actor Gardens is a two-acre walled garden where every plot is looked after by its "
            "own gardener, who takes requests from visitors by note and answers in their own "
            "time.",
            "This season the glasshouse is full of tree ferns and the long border is at its "
            "best in the early evening.",
            "We buy all our seed from our neighbours at the Mailbox Seed Company."},
           {{next_host_root, "Mailbox Seed Company"},
            {"/old-page", "The story of the gardens"},
            {"/events", "What's on this month"}}},
          {"/about", "About", "About the gardens",
           "The history of Actor Gardens, from a kitchen garden to a public botanical garden.",
           {"The gardens began in 1973 as a kitchen garden behind a printing works. The "
            "printers divided it into plots so that nobody had to wait for anybody else to "
            "finish digging.",
            "Today twelve gardeners look after forty plots. They never share a spade; they "
            "pass messages instead.",
            "The gardens are run by a small charity and supported by our friends' society."},
           {{"http://example.invalid/", "Friends of Actor Gardens"}}},
          {"/collections", "Collections", "Our plant collections",
           "Ferns, alpines, a herb spiral and the long herbaceous border at Actor Gardens.",
           {"The fern house holds over sixty species, from the tiny maidenhair to a tree fern "
            "that touches the roof.",
            "Our alpine troughs are replanted every spring with seedlings raised on site.",
            "The herb spiral is open for tasting on Saturday mornings."},
           {}},
          {"/visit", "Visit", "Plan your visit",
           "Opening times, directions and the visitor guide for Actor Gardens.",
           {"The gardens are open every day from 9am until dusk. Entry is free; donations keep "
            "the glasshouses warm.",
            "Paths are step-free except for the rockery. Dogs on leads are welcome.",
            "Download the visitor guide for a map of every plot."},
           {{"/docs/guide.pdf", "Visitor guide (PDF)"}}},
          {"/events", "Events", "Events this month",
           "Talks, workshops and guided walks at Actor Gardens this month.",
           {"Saturday: a guided walk through the fern house with our head gardener.",
            "Wednesday evening: a talk on dividing perennials without disturbing the "
            "neighbours.",
            "Notes from last spring's lecture series are no longer available."},
           {{"/missing", "Spring lecture notes"}}},
      }};
}

Site seed_company_site(const std::string& next_host_root) {
  return Site{
      "Mailbox Seed Company",
      {
          {"/", "Home", "Mailbox Seed Company",
           "Open-pollinated vegetable and flower seed, sent by post in paper packets.",
           {"We are a small seed company that packs every order by hand and sends it by post.",
            "Order by Thursday and your seeds arrive in your mailbox the next week.",
            "Read how our customers grow them in The Supervisor's Journal."},
           {{next_host_root, "The Supervisor's Journal"}}},
          {"/catalog", "Catalog", "Seed catalog",
           "Beans, tomatoes, salad leaves and cottage garden flowers from Mailbox Seed Company.",
           {"Runner bean 'Patient Messenger': reliable, heavy cropping and never in a hurry.",
            "Tomato 'Round Robin': small red fruit that ripen one truss at a time.",
            "Sweet pea 'Fan Out': a mix of scented colours that climbs in every direction."},
           {}},
          {"/growing-tips", "Growing tips", "Growing tips",
           "How to sow, water and harden off seedlings from Mailbox Seed Company.",
           {"Sow thinly and label every row; a seedling without a name is soon forgotten.",
            "Water from below so that the surface stays dry and the seedlings stay healthy.",
            "Harden off young plants over a week before planting them out."},
           {}},
          {"/about", "About us", "About Mailbox Seed Company",
           "A family seed company supplying gardens and allotments since 1988.",
           {"We started by swapping seed through the post with other gardeners and never "
            "stopped.",
            "All our varieties are trialled in the beds at Actor Gardens before they reach the "
            "catalog."},
           {}},
      }};
}

Site journal_site(const std::string& next_host_root) {
  return Site{
      "The Supervisor's Journal",
      {
          {"/", "Home", "The Supervisor's Journal",
           "A head gardener's notes on keeping a large garden healthy, one plot at a time.",
           {"I look after the gardeners at Actor Gardens, and when a plot fails I help it start "
            "again. These are my notes.",
            "New posts appear whenever the weather keeps me indoors."},
           {{next_host_root, "Actor Gardens"}}},
          {"/posts/pruning-in-winter", "Pruning in winter", "Pruning in winter",
           "When and how to prune fruit trees and roses during the dormant season.",
           {"Winter pruning is about structure: remove what is dead, damaged or crossing, then "
            "stand back.",
            "Never prune in a frost. Wait for a dry, mild day and keep your tools sharp."},
           {}},
          {"/posts/let-it-fail", "Let it fail", "Let it fail, then replant",
           "Why a failed seedbed is best cleared and resown rather than nursed along.",
           {"A tray of seedlings that damped off will not recover. Clear it, clean it and sow "
            "again; the new batch will overtake any survivors within a fortnight.",
            "Keep a spare packet of seed for exactly this reason."},
           {}},
          {"/archive", "Archive", "Archive",
           "Every post in The Supervisor's Journal, newest first.",
           {"Let it fail, then replant - March.", "Pruning in winter - January."},
           {{"/posts/let-it-fail", "Let it fail, then replant"},
            {"/posts/pruning-in-winter", "Pruning in winter"}}},
      }};
}

// Small but well-formed enough that a PDF reader would recognise it.
std::string fake_pdf() {
  return "%PDF-1.4\n"
         "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
         "2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
         "trailer << /Root 1 0 R >>\n"
         "%%EOF\n";
}

void serve_garden_extras(LoopbackWeb& web, const std::string& host_key) {
  Response pdf;
  pdf.content_type = "application/pdf";
  pdf.body = fake_pdf();
  web.route(host_key, "/docs/guide.pdf", pdf);

  Response moved;
  moved.status = 301;
  moved.body = "<html><body>Moved to <a href=\"/about\">/about</a></body></html>";
  moved.headers = {{"Location", "/about"}};
  web.route(host_key, "/old-page", moved);
  // "/missing" is deliberately left unrouted: it answers 404.
}

}  // namespace

DemoWeb start_demo_web() {
  DemoWeb demo;
  demo.web = std::make_unique<LoopbackWeb>();
  for (const char* ip : {"127.0.0.1", "127.0.0.2", "127.0.0.3"}) {
    demo.host_keys.push_back(demo.web->add_host(ip));
  }
  const auto root = [&demo](std::size_t i) { return LoopbackWeb::url(demo.host_keys[i % 3], "/"); };

  LoopbackWeb& web = *demo.web;
  serve_site(web, demo.host_keys[0], gardens_site(root(1)));
  serve_garden_extras(web, demo.host_keys[0]);
  serve_site(web, demo.host_keys[1], seed_company_site(root(2)));
  serve_site(web, demo.host_keys[2], journal_site(root(3)));

  demo.seed_url = root(0);
  return demo;
}

}  // namespace actorcrawl::demoweb
