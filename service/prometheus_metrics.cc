#include "service/prometheus_metrics.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

namespace actorcrawl {

namespace {

std::string number(double v) {
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v))
    return "NaN";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// A label set with one more label (le="...") appended.
std::string with_le(const std::string& labels, const std::string& le) {
  const std::string pair = "le=\"" + le + "\"";
  if (labels.empty())
    return "{" + pair + "}";
  return labels.substr(0, labels.size() - 1) + "," + pair + "}";
}

}  // namespace

std::string prometheus_labels(const PrometheusMetrics::Labels& labels) {
  if (labels.empty())
    return {};
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0)
      out += ',';
    out += labels[i].first + "=\"";
    for (char c : labels[i].second) {
      if (c == '\\')
        out += "\\\\";
      else if (c == '"')
        out += "\\\"";
      else if (c == '\n')
        out += "\\n";
      else
        out += c;
    }
    out += '"';
  }
  return out + "}";
}

PrometheusMetrics::Family& PrometheusMetrics::family(const std::string& name, Kind kind) {
  auto it = families_.find(name);
  if (it == families_.end() || it->second.kind != kind)
    throw std::logic_error("metric '" + name + "' is not declared with this kind");
  return it->second;
}

void PrometheusMetrics::declare_counter(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> lock{mutex_};
  families_[name] = Family{Kind::counter, help, {}, {}, {}};
}

void PrometheusMetrics::declare_gauge(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> lock{mutex_};
  families_[name] = Family{Kind::gauge, help, {}, {}, {}};
}

void PrometheusMetrics::declare_histogram(const std::string& name, const std::string& help,
                                          std::vector<double> bounds) {
  std::lock_guard<std::mutex> lock{mutex_};
  families_[name] = Family{Kind::histogram, help, std::move(bounds), {}, {}};
}

void PrometheusMetrics::add(const std::string& counter, const Labels& labels, double delta) {
  std::lock_guard<std::mutex> lock{mutex_};
  family(counter, Kind::counter).values[prometheus_labels(labels)] += delta;
}

void PrometheusMetrics::set(const std::string& gauge, const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock{mutex_};
  family(gauge, Kind::gauge).values[prometheus_labels(labels)] = value;
}

void PrometheusMetrics::clear(const std::string& gauge) {
  std::lock_guard<std::mutex> lock{mutex_};
  family(gauge, Kind::gauge).values.clear();
}

void PrometheusMetrics::drop_series_labelled(const std::string& label, const std::string& value) {
  // A rendered label set holds the pair as `{pair,` `{pair}` `,pair,` or
  // `,pair}`; a value cannot hold an unescaped quote, so no other pair
  // ends where this one would.
  const std::string braced = prometheus_labels({{label, value}});  // {label="value"}
  const std::string pair = braced.substr(1, braced.size() - 2);
  const auto labelled = [&](const std::string& labels) {
    for (const char* before : {"{", ","})
      for (const char* after : {",", "}"})
        if (labels.find(before + pair + after) != std::string::npos)
          return true;
    return false;
  };
  const auto drop_from = [&](auto& series) {
    for (auto it = series.begin(); it != series.end();)
      it = labelled(it->first) ? series.erase(it) : std::next(it);
  };
  std::lock_guard<std::mutex> lock{mutex_};
  for (auto& [name, f] : families_) {
    drop_from(f.values);
    drop_from(f.histograms);
  }
}

void PrometheusMetrics::observe(const std::string& histogram, const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock{mutex_};
  auto& f = family(histogram, Kind::histogram);
  auto& h = f.histograms[prometheus_labels(labels)];
  if (h.buckets.empty())
    h.buckets.assign(f.bounds.size(), 0);
  for (std::size_t i = 0; i < f.bounds.size(); ++i)
    if (value <= f.bounds[i]) {
      ++h.buckets[i];
      break;
    }
  ++h.count;
  h.sum += value;
}

std::string PrometheusMetrics::render() const {
  std::lock_guard<std::mutex> lock{mutex_};
  std::string out;
  for (const auto& [name, f] : families_) {
    const char* type = f.kind == Kind::counter ? "counter" : f.kind == Kind::gauge ? "gauge" : "histogram";
    out += "# HELP " + name + " " + f.help + "\n# TYPE " + name + " " + type + "\n";
    if (f.kind != Kind::histogram) {
      for (const auto& [labels, v] : f.values)
        out += name + labels + " " + number(v) + "\n";
      continue;
    }
    for (const auto& [labels, h] : f.histograms) {
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < f.bounds.size(); ++i) {
        cumulative += h.buckets[i];
        out += name + "_bucket" + with_le(labels, number(f.bounds[i])) + " " + std::to_string(cumulative) + "\n";
      }
      out += name + "_bucket" + with_le(labels, "+Inf") + " " + std::to_string(h.count) + "\n";
      out += name + "_sum" + labels + " " + number(h.sum) + "\n";
      out += name + "_count" + labels + " " + std::to_string(h.count) + "\n";
    }
  }
  return out;
}

}  // namespace actorcrawl
