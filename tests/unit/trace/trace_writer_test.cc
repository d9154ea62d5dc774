#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/clock/clock.h"
#include "core/trace/trace_writer.h"
#include "tests/unit/temp_path.h"

using namespace actorcrawl;

namespace {

// A scratch trace file unique to this process and test, removed at scope exit.
class TempTraceFile : public testing::TempPath {
 public:
  TempTraceFile() : TempPath("trace_writer_test", ".jsonl") {}
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TraceRecord message(std::string from, std::string to, std::string type, std::vector<std::string> urls = {}) {
  TraceRecord r;
  r.from = std::move(from);
  r.to = std::move(to);
  r.type = std::move(type);
  r.urls = std::move(urls);
  return r;
}

}  // namespace

TEST_CASE("TraceWriter numbers the lines, stamps the clocks and the node", "[trace]") {
  TempTraceFile file;
  const std::int64_t before = monotonic_us();
  {
    TraceWriter writer(file.str(), "n1");
    CHECK(writer.path() == file.str());
    writer.record(message("", "frontier", "crawl_seeds", {"http://a.test/"}));
    TraceRecord given = message("frontier", "host_selector", "crawl_batch");
    given.seq = 99;  // the writer's numbering wins
    given.wall_us = 1795381200000000;
    given.mono_us = 42;
    given.node = "elsewhere";
    given.from_node = "n1";  // the writer's own node: left out of the line
    writer.record(given);
    TraceRecord remote = message("processor", "frontier", "page_links");
    remote.from_node = "n2";
    writer.record(remote);
    writer.flush();
  }
  const auto lines = read_lines(file.str());
  REQUIRE(lines.size() == 3);
  const TraceRecord first = parse_trace_line(lines[0]);
  const TraceRecord second = parse_trace_line(lines[1]);
  const TraceRecord third = parse_trace_line(lines[2]);
  CHECK(first.seq == 1);
  CHECK(second.seq == 2);
  CHECK(third.seq == 3);
  CHECK(first.node == "n1");
  CHECK(second.node == "n1");
  CHECK(first.mono_us >= before);
  CHECK(first.wall_us > 1'600'000'000'000'000);  // after 2020: a real epoch time in µs
  CHECK(second.wall_us == 1795381200000000);
  CHECK(second.mono_us == 42);
  CHECK(second.from_node.empty());
  CHECK(lines[1].find("from_node") == std::string::npos);
  CHECK(third.from_node == "n2");
  CHECK(first.urls == std::vector<std::string>{"http://a.test/"});
}

TEST_CASE("TraceWriter keeps 64 URLs and the true count", "[trace]") {
  TempTraceFile file;
  std::vector<std::string> urls;
  for (int i = 0; i < 100; ++i)
    urls.push_back("http://a.test/" + std::to_string(i));
  {
    TraceWriter writer(file.str(), "n1");
    auto r = message("parse_lane/1", "frontier", "page_links", urls);
    r.fields = {{"depth", 2}};
    writer.record(r);
    writer.record(message("parse_lane/1", "frontier", "page_links", {urls.begin(), urls.begin() + 64}));
  }
  const auto lines = read_lines(file.str());
  REQUIRE(lines.size() == 2);
  const TraceRecord capped = parse_trace_line(lines[0]);
  CHECK(capped.urls.size() == TraceWriter::kMaxUrls);
  CHECK(capped.urls.back() == "http://a.test/63");
  CHECK(capped.fields.at("urls_total") == 100);
  CHECK(capped.fields.at("depth") == 2);
  const TraceRecord exact = parse_trace_line(lines[1]);
  CHECK(exact.urls.size() == 64);
  CHECK(exact.fields.is_null());
}

TEST_CASE("TraceWriter truncates the file, and flushes when destroyed", "[trace]") {
  TempTraceFile file;
  {
    std::ofstream old(file.str());
    old << "left over from an earlier run\n";
  }
  {
    TraceWriter writer(file.str(), "n1");
    writer.record(message("frontier", "storage", "frontier_delta"));
    CHECK(read_lines(file.str()).empty());  // still buffered
  }
  const auto lines = read_lines(file.str());
  REQUIRE(lines.size() == 1);
  CHECK(parse_trace_line(lines[0]).type == "frontier_delta");
}

TEST_CASE("TraceWriter: a file that cannot be opened or written is a TraceFileError", "[trace]") {
  const std::string missing = (std::filesystem::temp_directory_path() / "actorcrawl_no_such_dir_4242" / "t.jsonl").string();
  CHECK_THROWS_AS(TraceWriter(missing, "n1"), TraceFileError);
  CHECK_THROWS_WITH(TraceWriter(missing, "n1"), Catch::Contains(missing));

  if (std::filesystem::exists("/dev/full")) {
    TraceWriter writer("/dev/full", "n1");
    writer.record(message("frontier", "storage", "frontier_delta"));  // never throws
    CHECK_THROWS_WITH(writer.flush(), Catch::Contains("/dev/full"));
    writer.record(message("frontier", "storage", "frontier_delta"));
    CHECK_THROWS_AS(writer.flush(), TraceFileError);  // the error stays
  }
}

TEST_CASE("TraceWriter from 4 threads: whole lines, unique seqs in order", "[trace]") {
  TempTraceFile file;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  {
    TraceWriter writer(file.str(), "n1");
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&writer, t] {
        for (int i = 0; i < kPerThread; ++i) {
          auto r = message("fetch_worker/" + std::to_string(t), "processor", "fetch_result",
                           {"http://a.test/" + std::to_string(t) + "/" + std::to_string(i) + "?q=\"x\"\n"});
          r.fields = {{"thread", t}, {"i", i}, {"pad", std::string(static_cast<std::size_t>(i % 97), 'p')}};
          r.mailbox_us = i;
          writer.record(std::move(r));
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    writer.flush();
  }
  const auto lines = read_lines(file.str());
  REQUIRE(lines.size() == kThreads * kPerThread);
  std::set<std::uint64_t> seqs;
  std::uint64_t previous_seq = 0;
  std::int64_t previous_mono = 0;
  std::vector<int> next_index(kThreads, 0);
  bool all_in_order = true;
  for (const auto& line : lines) {
    const TraceRecord r = parse_trace_line(line);  // throws on a torn or interleaved line
    seqs.insert(r.seq);
    all_in_order = all_in_order && r.seq == previous_seq + 1 && r.mono_us >= previous_mono;
    previous_seq = r.seq;
    previous_mono = r.mono_us;
    const int t = r.fields.at("thread").get<int>();
    const int i = r.fields.at("i").get<int>();
    REQUIRE(t >= 0);
    REQUIRE(t < kThreads);
    all_in_order = all_in_order && i == next_index[static_cast<std::size_t>(t)]++;
    all_in_order = all_in_order && r.from == "fetch_worker/" + std::to_string(t) &&
                   r.urls.front() == "http://a.test/" + std::to_string(t) + "/" + std::to_string(i) + "?q=\"x\"\n";
  }
  CHECK(all_in_order);
  CHECK(seqs.size() == lines.size());
  CHECK(*seqs.begin() == 1);
  CHECK(*seqs.rbegin() == lines.size());
}
