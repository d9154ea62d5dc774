// Pages between fetch and record: what a lost worker node takes with it
// comes back, whichever order the fetch_done and the Processor's report
// arrive in, and nothing reported comes back twice.
#include "core/hosts/processing_ledger.h"

#include <catch2/catch.hpp>

using namespace actorcrawl;

namespace {

CrawlJob job(std::uint64_t seq, std::uint32_t attempt = 1) {
  CrawlJob j;
  j.seq = seq;
  j.url = "http://a.test/" + std::to_string(seq);
  j.host_key = "a.test";
  j.attempt = attempt;
  return j;
}

std::vector<std::uint64_t> seqs(const std::vector<CrawlJob>& jobs) {
  std::vector<std::uint64_t> out;
  for (const auto& j : jobs)
    out.push_back(j.seq);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("processing ledger: a worker lost returns what it fetched and the Processor did not report",
          "[processing_ledger]") {
  ProcessingLedger ledger;
  ledger.fetched(1, job(10));
  ledger.fetched(1, job(11));
  ledger.fetched(2, job(20));
  ledger.reported(10, 1);
  CHECK(ledger.awaiting() == 2);
  CHECK(seqs(ledger.worker_lost(1)) == std::vector<std::uint64_t>{11});
  CHECK(ledger.worker_lost(1).empty());
  CHECK(seqs(ledger.worker_lost(2)) == std::vector<std::uint64_t>{20});
  CHECK(ledger.awaiting() == 0);
}

TEST_CASE("processing ledger: a report before the fetch_done is kept for it", "[processing_ledger]") {
  ProcessingLedger ledger;
  ledger.reported(7, 2);
  CHECK(ledger.reported_early() == 1);
  ledger.fetched(1, job(7, 2));
  CHECK(ledger.awaiting() == 0);
  CHECK(ledger.reported_early() == 0);
  CHECK(ledger.worker_lost(1).empty());
}

TEST_CASE("processing ledger: a report of another attempt settles nothing", "[processing_ledger]") {
  ProcessingLedger ledger;
  // An old attempt's late report, then the new attempt's fetch.
  ledger.reported(5, 1);
  ledger.fetched(1, job(5, 2));
  CHECK(ledger.awaiting() == 1);
  CHECK(ledger.reported_early() == 0);
  ledger.reported(5, 1);  // late again, after the fetch: the open one stays
  CHECK(ledger.awaiting() == 1);
  ledger.reported(5, 2);
  CHECK(ledger.awaiting() == 0);
}

TEST_CASE("processing ledger: a redirect's hops under one lease, each reported", "[processing_ledger]") {
  ProcessingLedger ledger;
  // Hop 1 fetched, its follow_redirect reported; hop 2 (same seq and
  // attempt) fetched by another worker, then stored.
  ledger.fetched(1, job(3));
  ledger.reported(3, 1);
  ledger.fetched(2, job(3));
  CHECK(ledger.worker_lost(1).empty());
  CHECK(seqs(ledger.worker_lost(2)) == std::vector<std::uint64_t>{3});
}
