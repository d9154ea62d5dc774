// The test runner of CAF's unit test framework (main, its command line
// flags: -s suites, -t tests, -v verbosity, ...) for the actor protocol tests.
#include <caf/test/unit_test_impl.hpp>
