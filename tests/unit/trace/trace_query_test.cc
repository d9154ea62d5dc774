#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock/utc_time.h"
#include "core/trace/trace_query.h"
#include "tests/unit/temp_path.h"
#include "tests/unit/trace/mermaid_sequence.h"

using namespace actorcrawl;

namespace {

// A scratch trace file unique to this process and test, removed at scope exit.
class TempTraceFile : public testing::TempPath {
 public:
  TempTraceFile() : TempPath("trace_query_test", ".jsonl") {}
};

constexpr std::int64_t kT0 = 1795381200000000;  // 2026-11-22T21:00:00Z in µs

TraceRecord rec(std::uint64_t seq, std::int64_t wall_us, std::string node, std::string from, std::string to,
                std::string type, std::vector<std::string> urls = {}) {
  TraceRecord r;
  r.seq = seq;
  r.mono_us = static_cast<std::int64_t>(seq) * 10;
  r.wall_us = wall_us;
  r.node = std::move(node);
  r.from = std::move(from);
  r.to = std::move(to);
  r.type = std::move(type);
  r.urls = std::move(urls);
  return r;
}

std::string lines_of(const std::vector<TraceRecord>& records) {
  std::string text;
  for (const auto& r : records)
    append_trace_line(text, r);
  return text;
}

// The whitespace-separated words of the first line that starts with `start`.
std::vector<std::string> row_words(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(start, 0) == 0) {
      std::istringstream words(line);
      std::vector<std::string> out;
      for (std::string w; words >> w;)
        out.push_back(w);
      return out;
    }
  }
  return {};
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

// One URL's journey over two nodes: frontier and selector on n1, a worker
// and the processor on n2.
std::vector<TraceRecord> journey() {
  const std::string url = "http://a.test/docs/page;v=1?q=2";
  auto seeds = rec(1, kT0, "n1", "", "frontier", "crawl_seeds", {url});
  auto batch = rec(2, kT0 + 1000, "n1", "frontier", "host_selector", "crawl_batch", {url, "http://a.test/other"});
  batch.mailbox_us = 40;
  auto job = rec(1, kT0 + 2000, "n2", "host_selector", "fetch_worker/1", "fetch_job", {url});
  job.from_node = "n1";
  job.request_id = 9;
  auto done = rec(3, kT0 + 9000, "n1", "fetch_worker/1", "host_selector", "fetch_done", {url});
  done.from_node = "n2";
  done.reply_to = 9;
  auto result = rec(2, kT0 + 9500, "n2", "fetch_worker/1", "processor", "fetch_result", {url});
  result.fields = {{"status", 200}};
  result.mailbox_us = 300;
  auto links = rec(4, kT0 + 12000, "n1", "processor", "frontier", "page_links", {url});
  links.from_node = "n2";
  links.mailbox_us = 100;
  return {seeds, batch, job, done, result, links};
}

}  // namespace

TEST_CASE("read_trace_files merges two nodes' files by time, node, seq", "[trace]") {
  TempTraceFile a, b;
  a.write(lines_of({rec(1, 100, "a", "frontier", "host_selector", "crawl_batch"),
                    rec(2, 100, "a", "frontier", "host_selector", "crawl_batch"),
                    rec(3, 300, "a", "frontier", "storage", "frontier_delta")}));
  b.write("\n" + lines_of({rec(1, 100, "b", "host_selector", "fetch_worker/1", "fetch_job")}) + "   \n" +
          lines_of({rec(2, 200, "b", "fetch_worker/1", "processor", "fetch_result")}));
  const auto records = read_trace_files({b.str(), a.str()});
  REQUIRE(records.size() == 5);
  std::vector<std::string> order;
  for (const auto& r : records)
    order.push_back(r.node + std::to_string(r.seq));
  CHECK(order == std::vector<std::string>{"a1", "a2", "b1", "b2", "a3"});

  SECTION("a single file keeps its order") {
    const auto one = read_trace_files({a.str()});
    REQUIRE(one.size() == 3);
    CHECK(one[0].seq == 1);
    CHECK(one[1].seq == 2);
    CHECK(one[2].seq == 3);
  }
  SECTION("reading through a filter keeps only what matches, and the first time of all") {
    TraceFilter filter;
    filter.actor = "fetch_worker";
    std::int64_t first = -1;
    const auto kept = read_trace_files({a.str(), b.str()}, filter, &first);
    REQUIRE(kept.size() == 2);
    CHECK(kept[0].node + std::to_string(kept[0].seq) == "b1");
    CHECK(kept[1].node + std::to_string(kept[1].seq) == "b2");
    CHECK(first == 100);
    filter.actor = "nobody";
    CHECK(read_trace_files({b.str()}, filter, &first).empty());
    CHECK(first == 100);
  }
  SECTION("a bad line names the file and the line") {
    TempTraceFile bad;
    bad.write(lines_of({rec(1, 100, "a", "x", "y", "z")}) + "\n{\"seq\":1}\n");
    CHECK_THROWS_AS(read_trace_files({a.str(), bad.str()}), TraceFormatError);
    CHECK_THROWS_WITH(read_trace_files({a.str(), bad.str()}), bad.str() + ":3: missing key \"mono_us\"");
  }
  SECTION("a missing file or a directory is a TraceFileError naming it") {
    TempTraceFile never_written;
    CHECK_THROWS_AS(read_trace_files({never_written.str()}), TraceFileError);
    CHECK_THROWS_WITH(read_trace_files({never_written.str()}), Catch::Contains(never_written.str()));
    CHECK_THROWS_AS(read_trace_files({std::filesystem::temp_directory_path().string()}), TraceFileError);
  }
  SECTION("an empty file has no records") {
    TempTraceFile empty;
    empty.write("");
    CHECK(read_trace_files({empty.str()}).empty());
  }
}

TEST_CASE("TraceFilter: url, actor, type, since and until", "[trace]") {
  auto r = rec(1, 1000, "n1", "fetch_worker/2", "processor", "fetch_result", {"http://a.test/", "http://a.test/b"});
  TraceFilter f;
  CHECK(f.matches(r));

  f = {};
  f.url = "http://a.test/b";
  CHECK(f.matches(r));
  f.url = "http://a.test";
  CHECK_FALSE(f.matches(r));
  f.url = "http://a.test/b/";
  CHECK_FALSE(f.matches(r));

  f = {};
  for (const char* yes : {"fetch_worker", "fetch_worker/2", "processor"}) {
    f.actor = yes;
    CHECK(f.matches(r));
  }
  for (const char* no : {"fetch", "fetch_worker/", "fetch_worker/20", "worker", "process", "frontier"}) {
    f.actor = no;
    CHECK_FALSE(f.matches(r));
  }
  auto remote = rec(1, 1000, "n1", "processor@n2", "frontier", "page_links");
  f.actor = "processor";
  CHECK(f.matches(remote));

  f = {};
  f.type = "fetch_result";
  CHECK(f.matches(r));
  f.type = "fetch";
  CHECK_FALSE(f.matches(r));

  f = {};
  f.since_wall_us = 1000;
  f.until_wall_us = 1000;
  CHECK(f.matches(r));  // both bounds inclusive
  f.since_wall_us = 1001;
  CHECK_FALSE(f.matches(r));
  f.since_wall_us = 0;
  f.until_wall_us = 999;
  CHECK_FALSE(f.matches(r));

  f = {};
  f.actor = "fetch_worker";
  f.type = "fetch_result";
  f.url = "http://a.test/";
  CHECK(f.matches(r));
  f.type = "fetch_job";
  CHECK_FALSE(f.matches(r));  // all conditions must hold
}

TEST_CASE("parse_time_bound: ISO UTC, epoch milliseconds, +seconds", "[trace]") {
  CHECK(parse_time_bound("2026-11-22T21:00:00Z", 0) == kT0);
  CHECK(parse_time_bound("2026-11-22T21:00:00.5Z", 0) == kT0 + 500000);
  CHECK(parse_time_bound("2026-11-22T21:00:00.123456789Z", 0) == kT0 + 123456);
  CHECK(parse_time_bound("2024-02-29T12:30:15Z", 0) == 1709209815LL * 1000000);
  CHECK(parse_time_bound("1970-01-01T00:00:00Z", 0) == 0);
  CHECK(parse_time_bound("1969-12-31T23:59:59Z", 0) == -1000000);
  CHECK(parse_time_bound("1795381200123", 0) == kT0 + 123000);
  CHECK(parse_time_bound("+0", kT0) == kT0);
  CHECK(parse_time_bound("+2.5", kT0) == kT0 + 2500000);
  CHECK(parse_time_bound("+.25", kT0) == kT0 + 250000);
  CHECK(parse_time_bound("+3.", kT0) == kT0 + 3000000);
  CHECK(parse_time_bound("+0.0000019", kT0) == kT0 + 1);
  CHECK(iso8601_utc_us(kT0 + 123456) == "2026-11-22T21:00:00.123456Z");
  CHECK(iso8601_utc_us(-1) == "1969-12-31T23:59:59.999999Z");
  CHECK(parse_time_bound(iso8601_utc_us(kT0 + 7), 0) == kT0 + 7);

  for (const char* bad : {"", "now", "123", "179538120012", "+", "+.", "+x", "+1.2.3", "+-1", "+1e3", "-5",
                          "99999999999999999999", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
                          "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-22T24:00:00Z",
                          "2026-11-22T21:60:00Z", "2026-11-22T21:00:60Z", "2026-11-22T21:00:00",
                          "2026-11-22T21:00:00+01:00", "2026-11-22 21:00:00Z", "2026-11-22T21:00:00.Z",
                          "2026-11-22T21:00Z", "2026-1x-22T21:00:00Z", "2026-11-22T21:00:00Zjunk",
                          "+1234567890123"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_time_bound(bad, kT0), TimeBoundError);
  }
  CHECK_THROWS_WITH(parse_time_bound("now", 0), Catch::Contains("'now' is not a time"));
  CHECK_THROWS_WITH(parse_time_bound("2026-02-29T00:00:00Z", 0), Catch::Contains("no day 29"));
}

TEST_CASE("render_lines: relative milliseconds, route, type, URL, fields", "[trace]") {
  auto records = journey();
  const std::string text = render_lines(records);
  CHECK(count_of(text, "\n") == records.size());
  CHECK(text.rfind(" 0.000  n1  external -> frontier", 0) == 0);
  CHECK(row_words(text, " 1.000") == std::vector<std::string>{"1.000", "n1", "frontier", "->", "host_selector",
                                                                  "crawl_batch", "http://a.test/docs/page;v=1?q=2",
                                                                  "(+1", "more)", "mailbox=40us"});
  CHECK(row_words(text, " 2.000") == std::vector<std::string>{"2.000", "n2", "host_selector@n1", "->", "fetch_worker/1",
                                                                  "fetch_job", "http://a.test/docs/page;v=1?q=2",
                                                                  "request=9"});
  CHECK(text.find("reply_to=9") != std::string::npos);
  CHECK(text.find("{\"status\":200}  mailbox=300us") != std::string::npos);
  CHECK(text.find("12.000") != std::string::npos);

  SECTION("an origin before the first record shifts the times") {
    const std::string shifted = render_lines({records[1]}, kT0);
    CHECK(shifted.rfind("1.000  n1", 0) == 0);
  }
  SECTION("control characters in names do not break the line") {
    auto odd = rec(1, kT0, "n\n1", "a\tb", "c\rd", "t\ny", {"http://x/\n"});
    const std::string line = render_lines({odd});
    CHECK(count_of(line, "\n") == 1);
    CHECK(line.find("n?1  a?b -> c?d  t?y  http://x/?") != std::string::npos);
  }
  CHECK(render_lines({}).empty());
}

TEST_CASE("render_mermaid: one URL's journey over two nodes is a valid diagram", "[trace]") {
  const std::string text = render_mermaid(journey());
  INFO(text);
  CHECK(testing::is_valid_mermaid_sequence(text));
  CHECK(text.rfind("sequenceDiagram\n", 0) == 0);
  CHECK(text.find("    participant P1 as external\n") != std::string::npos);
  CHECK(text.find("    participant P2 as frontier @ n1\n") != std::string::npos);
  CHECK(text.find("    participant P3 as host_selector @ n1\n") != std::string::npos);
  CHECK(text.find("    participant P4 as fetch_worker/1 @ n2\n") != std::string::npos);
  CHECK(text.find("    participant P5 as processor @ n2\n") != std::string::npos);
  CHECK(count_of(text, "participant ") == 5);
  CHECK(text.find("    P1->>P2: crawl_seeds /docs/page%3Bv=1?q=2\n") != std::string::npos);
  CHECK(text.find("    P2->>P3: crawl_batch /docs/page%3Bv=1?q=2 (+1)\n") != std::string::npos);
  CHECK(text.find("    P3->>P4: fetch_job /docs/page%3Bv=1?q=2\n") != std::string::npos);
  CHECK(text.find("    P4-->>P3: fetch_done /docs/page%3Bv=1?q=2\n") != std::string::npos);
  CHECK(text.find("    P5->>P2: page_links") != std::string::npos);
  CHECK(count_of(text, "->>") == 6);

  SECTION("one node: labels without the node") {
    const std::string single = render_mermaid({rec(1, kT0, "n1", "frontier", "host_selector", "crawl_batch"),
                                               rec(2, kT0, "n1", "host_selector", "frontier", "work_demand")});
    CHECK(testing::is_valid_mermaid_sequence(single));
    CHECK(single == "sequenceDiagram\n"
                    "    participant P1 as frontier\n"
                    "    participant P2 as host_selector\n"
                    "    P1->>P2: crawl_batch\n"
                    "    P2->>P1: work_demand\n");
  }
  SECTION("characters Mermaid treats specially are removed") {
    auto odd = rec(1, kT0, "n1", "a;b#c:d\ne", "  ", "ty;pe#\n", {"http://h/p#frag;x\n"});
    const std::string diagram = render_mermaid({odd});
    INFO(diagram);
    CHECK(testing::is_valid_mermaid_sequence(diagram));
    CHECK(diagram.find("participant P1 as a_b_c_d_e\n") != std::string::npos);
    CHECK(diagram.find("participant P2 as unknown\n") != std::string::npos);
    CHECK(diagram.find("P1->>P2: ty_pe__ /p%23frag%3Bx%0A\n") != std::string::npos);
  }
  SECTION("a long path is cut short") {
    const std::string diagram =
      render_mermaid({rec(1, kT0, "n1", "a", "b", "t", {"http://h/" + std::string(200, 'x')})});
    CHECK(testing::is_valid_mermaid_sequence(diagram));
    CHECK(diagram.find("/" + std::string(59, 'x') + "...\n") != std::string::npos);
  }
  CHECK(render_mermaid({}) == "sequenceDiagram\n");
  CHECK(testing::is_valid_mermaid_sequence(render_mermaid({})));
}

TEST_CASE("is_valid_mermaid_sequence rejects what Mermaid would", "[trace]") {
  const std::string good = "sequenceDiagram\n"
                           "    participant P1 as frontier\n"
                           "    participant P2 as host_selector @ n1\n"
                           "    P1->>P2: crawl_batch /a\n"
                           "    P2-->>P1: reply\n";
  CHECK(testing::is_valid_mermaid_sequence(good));
  CHECK(testing::is_valid_mermaid_sequence("\n\nsequenceDiagram\n"));
  CHECK(testing::is_valid_mermaid_sequence("sequenceDiagram\nparticipant A as a\nA ->> A : spaced\n"));
  CHECK(testing::is_valid_mermaid_sequence("  \nsequenceDiagram\nparticipant A as a\nA->>A: self\n"));

  CHECK_FALSE(testing::is_valid_mermaid_sequence(""));                                       // nothing
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good.substr(good.find('\n') + 1)));          // missing header
  CHECK_FALSE(testing::is_valid_mermaid_sequence("graph TD\n" + good));                      // another header first
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>P3: undeclared\n"));       // undeclared participant
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P3->>P1: undeclared\n"));
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->P2: bad arrow\n"));         // bad arrows
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1-->P2: bad arrow\n"));
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1=>>P2: bad arrow\n"));
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>P2 no colon\n"));          // ':' missing
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>P2:\n"));                  // no text
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>P2: a;b\n"));              // ';' in text
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>P2: a#b\n"));              // '#' in text
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    P1->>: x\n"));                  // no receiver
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    ->>P2: x\n"));                  // no sender
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant P1 as again\n"));   // declared twice
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant P3\n"));            // no label
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant P3 as \n"));
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant P3 as a:b\n"));     // ':' in a label
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant P3 is x\n"));
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    participant 3P as x\n"));       // bad id
  CHECK_FALSE(testing::is_valid_mermaid_sequence(good + "    note over P1: hi\n"));          // outside the subset
  CHECK_FALSE(testing::is_valid_mermaid_sequence("sequenceDiagram\r\nparticipant A as a\r\n"));  // CR
}

TEST_CASE("render_summary: messages by actor and type, mailbox times, span", "[trace]") {
  const std::string text = render_summary(journey());
  INFO(text);
  CHECK(text.find("records  6\n") != std::string::npos);
  CHECK(text.find("nodes    2 (n1, n2)\n") != std::string::npos);
  CHECK(text.find("span     0.012 s (2026-11-22T21:00:00.000000Z to 2026-11-22T21:00:00.012000Z)\n") !=
        std::string::npos);
  // actor / type, messages, with mailbox, mailbox ms, mean us, max us
  CHECK(row_words(text, "frontier @ n1") ==
        std::vector<std::string>{"frontier", "@", "n1", "2", "1", "0.100", "100.0", "100"});
  CHECK(row_words(text, "  crawl_seeds") == std::vector<std::string>{"crawl_seeds", "1", "0", "-", "-", "-"});
  CHECK(row_words(text, "host_selector @ n1") ==
        std::vector<std::string>{"host_selector", "@", "n1", "2", "1", "0.040", "40.0", "40"});
  CHECK(row_words(text, "processor @ n2") ==
        std::vector<std::string>{"processor", "@", "n2", "1", "1", "0.300", "300.0", "300"});

  std::vector<TraceRecord> waits;
  for (std::int64_t w : {100, 300, 0}) {
    auto r = rec(static_cast<std::uint64_t>(waits.size() + 1), kT0, "n1", "fetch_worker/1", "processor",
                 "fetch_result");
    r.mailbox_us = w;
    waits.push_back(r);
  }
  waits.push_back(rec(9, kT0 + 1500000, "n1", "processor", "storage", "store_pages"));
  const std::string single = render_summary(waits);
  INFO(single);
  CHECK(row_words(single, "processor") == std::vector<std::string>{"processor", "3", "3", "0.400", "133.3", "300"});
  CHECK(row_words(single, "  fetch_result") ==
        std::vector<std::string>{"fetch_result", "3", "3", "0.400", "133.3", "300"});
  CHECK(row_words(single, "storage") == std::vector<std::string>{"storage", "1", "0", "-", "-", "-"});
  CHECK(single.find("nodes    1 (n1)\n") != std::string::npos);
  CHECK(single.find("span     1.500 s") != std::string::npos);
  CHECK(render_summary({}) == "records  0\n");
}

TEST_CASE("renderers take any numbers a file may hold", "[trace]") {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  auto a = rec(1, lo, "n1", "", "", "");
  a.mailbox_us = hi;
  auto b = rec(std::numeric_limits<std::uint64_t>::max(), hi, "n1", "x", "y", "z");
  b.mailbox_us = hi;
  const std::vector<TraceRecord> records = {a, b};
  const std::string lines = render_lines(records);
  CHECK(lines.find("18446744073709551.615") != std::string::npos);  // 2^64 - 1 µs, in ms
  CHECK(render_lines(records, hi).find("-18446744073709551.615") != std::string::npos);
  CHECK(render_summary(records).find("records  2") == 0);
  const auto unknown = row_words(render_summary(records), "unknown");  // the empty receiver
  REQUIRE(unknown.size() == 6);
  CHECK(unknown[1] == "1");
  CHECK(unknown[2] == "1");
  CHECK(unknown[5] == "9223372036854775807");
  CHECK(testing::is_valid_mermaid_sequence(render_mermaid(records)));
  CHECK(iso8601_utc_us(lo).back() == 'Z');
  CHECK(iso8601_utc_us(hi).back() == 'Z');
  CHECK_THROWS_AS(parse_time_bound("+999999999999", hi - 5), TimeBoundError);
}
