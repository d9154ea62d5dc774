// The warc processor's cost per page: building a response record (two SHA-1
// passes, block and payload), compressing it into a gzip member, and the
// whole WarcArchive::archive() of an exchange with its write to a file in
// the temporary directory. Pages are the shared 16 KB corpus; each
// benchmark's bytes_per_second is of page bodies.
//
// BM_GzipLevel compares zlib levels on the same pages: why gzip_member uses
// level 1 (Z_BEST_SPEED) rather than zlib's default 6.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "bench/micro/corpus.h"
#include "core/warc/warc_archive.h"
#include "core/warc/warc_record.h"

namespace {

using namespace actorcrawl;

HttpExchange exchange_of(const bench::Page& page, std::size_t i) {
  HttpExchange x;
  x.target_uri = page.url;
  x.date_ms = 1700000000000 + static_cast<std::int64_t>(i);
  x.ip_address = "127.0.0.1";
  x.request_head = "GET / HTTP/1.1\r\nHost: a.test\r\nUser-Agent: actorcrawl/0.1\r\nAccept: */*\r\n"
                   "Accept-Encoding: deflate, gzip, br, zstd\r\n\r\n";
  x.response_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"
                    "Content-Length: 4096\r\nDate: Tue, 14 Nov 2023 22:13:20 GMT\r\nServer: nginx\r\n\r\n";
  x.body = page.body;
  return x;
}

const RecordIds kIds{new_record_id(), new_record_id(), new_record_id()};

void BM_WarcResponseRecord(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& p = pages[i++ % pages.size()];
    benchmark::DoNotOptimize(response_record(exchange_of(p, i), kIds).serialize());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bench::total_bytes(pages) / pages.size() * state.iterations()));
}
BENCHMARK(BM_WarcResponseRecord);

void BM_WarcGzipMember(benchmark::State& state) {
  const auto& pages = bench::pages();
  std::vector<std::string> records;
  for (std::size_t i = 0; i < pages.size(); ++i)
    records.push_back(response_record(exchange_of(pages[i], i), kIds).serialize());
  std::size_t i = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(gzip_member(records[i++ % records.size()]));
  state.SetBytesProcessed(static_cast<std::int64_t>(bench::total_bytes(pages) / pages.size() * state.iterations()));
}
BENCHMARK(BM_WarcGzipMember);

void BM_GzipLevel(benchmark::State& state) {
  const auto& pages = bench::pages();
  const int level = static_cast<int>(state.range(0));
  std::size_t i = 0, out_bytes = 0, in_bytes = 0;
  std::string out(64 * 1024, '\0');
  for (auto _ : state) {
    const std::string& in = pages[i++ % pages.size()].body;
    z_stream z{};
    deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out_bytes += z.total_out;
    in_bytes += in.size();
    deflateEnd(&z);
  }
  state.counters["ratio"] = static_cast<double>(out_bytes) / static_cast<double>(in_bytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(in_bytes));
}
BENCHMARK(BM_GzipLevel)->Arg(1)->Arg(6);

// libdeflate's whole-buffer gzip on the same pages.
void BM_LibdeflateLevel(benchmark::State& state) {
  const auto& pages = bench::pages();
  libdeflate_compressor* c = libdeflate_alloc_compressor(static_cast<int>(state.range(0)));
  std::size_t i = 0, out_bytes = 0, in_bytes = 0;
  std::string out(64 * 1024, '\0');
  for (auto _ : state) {
    const std::string& in = pages[i++ % pages.size()].body;
    out_bytes += libdeflate_gzip_compress(c, in.data(), in.size(), out.data(), out.size());
    in_bytes += in.size();
  }
  libdeflate_free_compressor(c);
  state.counters["ratio"] = static_cast<double>(out_bytes) / static_cast<double>(in_bytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(in_bytes));
}
BENCHMARK(BM_LibdeflateLevel)->Arg(1)->Arg(3)->Arg(6);

// The whole processor: ids, digests, revisit lookup, records, gzip, the
// append. Every page once per pass, so after the first pass of 64 pages
// the payloads repeat: Arg(0) makes each body unique (a response each
// time), Arg(1) lets them repeat (revisits).
void BM_WarcArchive(benchmark::State& state) {
  const auto& pages = bench::pages();
  static std::atomic<int> counter{0};
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("actorcrawl-warc-bench-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                            .string();
  {
    WarcArchive::Settings s;
    s.files.dir = dir;
    WarcArchive archive{s};
    const bool repeat = state.range(0) == 1;
    std::vector<std::string> bodies;
    for (const auto& p : pages)
      bodies.push_back(p.body);
    std::size_t i = 0;
    for (auto _ : state) {
      const std::size_t k = i % pages.size();
      if (!repeat)  // a 16-byte change: noise next to the rest
        bodies[k].replace(bodies[k].size() - 16, 16, std::to_string(1000000000000000 + i));
      HttpExchange x = exchange_of(pages[k], i);
      x.body = bodies[k];
      archive.archive(x);
      ++i;
    }
    state.counters["revisits"] = static_cast<double>(archive.counts().revisits);
  }
  std::filesystem::remove_all(dir);
  state.SetBytesProcessed(static_cast<std::int64_t>(bench::total_bytes(pages) / pages.size() * state.iterations()));
}
BENCHMARK(BM_WarcArchive)->Arg(0)->Arg(1);

}  // namespace
