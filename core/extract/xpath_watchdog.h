// A CPU-time budget for XPath evaluations, and a way to stop them early.
// libxml2 counts its operations (xmlXPathContext::opLimit) but not the
// node-set merges of a step with a descendant or following axis, which
// are quadratic in the nodes found: `count(//div//p)` over 250 nested divs
// and 40,000 paragraphs took 155 s under any operation limit. libxml2 has
// no hook to interrupt an evaluation, but it checks opLimit at every node
// it visits and every operation: a watchdog thread that sees an
// evaluation's thread past its CPU budget (or told to stop) lowers that
// limit to 1, and the evaluation fails at its next check.
//
// What it cannot stop is one merge already under way: at most the nodes
// one step found times those found before (a page's paragraphs, squared,
// for //div//p), a fraction of a second on a page of 20,000.
//
// Writing opLimit from the watchdog's thread while the evaluating thread
// reads it is a race in the C++ memory model; it is an aligned word, set
// once, read as a whole on every platform this runs on (x86-64, arm64),
// and the worst an old read does is a few more operations.
#pragma once

#include <libxml/xpath.h>

#include <atomic>
#include <chrono>
#include <memory>

namespace actorcrawl {

class XPathWatchdog {
 public:
  class Watch;

  // The process's one watchdog (its thread starts with the first watch).
  static XPathWatchdog& instance();

  // Watches `context`, which the calling thread evaluates until the Watch
  // is destroyed: once this thread's CPU time since now passes `budget`,
  // or `stop` (when given) turns true, the evaluation is stopped.
  std::unique_ptr<Watch> watch(xmlXPathContext* context, std::chrono::microseconds budget,
                               const std::atomic<bool>* stop = nullptr);

  ~XPathWatchdog();

 private:
  XPathWatchdog();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class XPathWatchdog::Watch {
 public:
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  // Why the watchdog stopped the evaluation: "" (it did not), "its CPU
  // budget", "the crawl stopping".
  std::string stopped_for() const;

 private:
  friend class XPathWatchdog;
  struct State;
  explicit Watch(std::shared_ptr<State> state, XPathWatchdog::Impl* owner);
  std::shared_ptr<State> state_;
  XPathWatchdog::Impl* owner_;
};

}  // namespace actorcrawl
