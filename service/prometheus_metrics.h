// Counters, gauges and histograms with labels, rendered in the Prometheus
// text exposition format (version 0.0.4) for the service's GET /metrics.
// Thread-safe: crawl threads count while HTTP threads render.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace actorcrawl {

class PrometheusMetrics {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  // Declares a family once (its help text and kind); adding to an
  // undeclared family is a programming error and throws std::logic_error.
  void declare_counter(const std::string& name, const std::string& help);
  void declare_gauge(const std::string& name, const std::string& help);
  void declare_histogram(const std::string& name, const std::string& help, std::vector<double> bounds);

  void add(const std::string& counter, const Labels& labels, double delta = 1);
  void set(const std::string& gauge, const Labels& labels, double value);
  // Drops every series of a gauge (before setting a fresh snapshot).
  void clear(const std::string& gauge);
  // Drops every series, of any family, labelled `label`="value": a job's
  // series end with the job, rather than stay at their last values (an
  // ended job's in_flight) and pile up over the service's life.
  void drop_series_labelled(const std::string& label, const std::string& value);
  void observe(const std::string& histogram, const Labels& labels, double value);

  std::string render() const;

 private:
  enum class Kind { counter, gauge, histogram };
  struct Histogram {
    std::vector<std::uint64_t> buckets;  // cumulative counts are derived when rendering
    std::uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    Kind kind = Kind::counter;
    std::string help;
    std::vector<double> bounds;
    std::map<std::string, double> values;          // by rendered label set
    std::map<std::string, Histogram> histograms;   // by rendered label set
  };
  Family& family(const std::string& name, Kind kind);

  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;
};

// {a="x",b="y"} with the values escaped (\\, \", \n), or "" for none.
std::string prometheus_labels(const PrometheusMetrics::Labels& labels);

}  // namespace actorcrawl
