#include "core/frontier/lease_ledger.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("LeaseLedger: a lease ends once, late and repeated reports are told apart", "[lease_ledger]") {
  LeaseLedger ledger;
  ledger.leased(7, 1);
  ledger.leased(8, 1);
  CHECK(ledger.size() == 2);
  CHECK(ledger.end(7, 1));
  CHECK_FALSE(ledger.end(7, 1));   // the second report of one lease
  CHECK_FALSE(ledger.end(99, 1));  // never leased
  CHECK(ledger.stale() == 2);
  CHECK(ledger.size() == 1);
}

TEST_CASE("LeaseLedger: a late report of an earlier attempt cannot end the lease that replaced it",
          "[lease_ledger]") {
  LeaseLedger ledger;
  ledger.leased(8, 1);
  // Handed back (its worker was given up on) and leased again: attempt 2.
  CHECK(ledger.end(8, 1));
  ledger.leased(8, 2);
  CHECK_FALSE(ledger.end(8, 1));  // the first worker's report, arriving late
  CHECK(ledger.size() == 1);      // attempt 2 is still out
  CHECK(ledger.end(8, 2));
  CHECK_FALSE(ledger.end(8, 2));
  CHECK(ledger.stale() == 2);
  CHECK(ledger.size() == 0);
}

}  // namespace actorcrawl
