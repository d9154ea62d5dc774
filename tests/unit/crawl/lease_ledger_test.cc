#include "core/crawl/lease_ledger.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("LeaseLedger: a lease ends once; late and repeated reports are told apart", "[lease_ledger]") {
  LeaseLedger ledger;
  ledger.leased(7);
  ledger.leased(8);
  CHECK(ledger.size() == 2);
  CHECK(ledger.end(7));
  CHECK_FALSE(ledger.end(7));   // the second report of one lease
  CHECK_FALSE(ledger.end(99));  // never leased
  // Handed back and leased again under the same seq: one end per lease.
  CHECK(ledger.end(8));
  ledger.leased(8);
  CHECK(ledger.end(8));
  CHECK_FALSE(ledger.end(8));
  CHECK(ledger.size() == 0);
}

}  // namespace actorcrawl
