#include "core/sitemap/sitemap_parser.h"

#include <libxml/parser.h>
#include <libxml/dict.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>

#include "core/sitemap/bounded_gunzip.h"
#include "core/sitemap/w3c_datetime.h"
#include "core/sitemap/xml_markup_guard.h"
#include "core/web/ascii.h"
#include "core/web/url.h"

namespace actorcrawl {

const char* to_string(SitemapKind kind) {
  switch (kind) {
    case SitemapKind::unknown: return "unknown";
    case SitemapKind::urlset: return "urlset";
    case SitemapKind::index: return "index";
    case SitemapKind::text: return "text";
  }
  return "unknown";
}

const char* to_string(SitemapError error) {
  switch (error) {
    case SitemapError::none: return "";
    case SitemapError::too_large: return "sitemap_too_large";
    case SitemapError::gzip_bomb: return "gzip_bomb";
    case SitemapError::gzip_corrupt: return "gzip_corrupt";
    case SitemapError::gzip_truncated: return "gzip_truncated";
    case SitemapError::not_sitemap: return "sitemap_not_sitemap";
    case SitemapError::malformed: return "sitemap_malformed";
    case SitemapError::entities: return "sitemap_entities";
    case SitemapError::dtd: return "sitemap_dtd";
    case SitemapError::nesting: return "sitemap_nesting";
    case SitemapError::markup_too_large: return "sitemap_markup_too_large";
    case SitemapError::too_complex: return "sitemap_too_complex";
  }
  return "sitemap_malformed";
}

std::uint64_t SitemapCounts::dropped_total() const {
  std::uint64_t total = 0;
  for (const auto n : dropped) total += n;
  return total;
}

namespace {

void init_libxml_once() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
}

void ignore_generic(void*, const char*, ...) {}
void ignore_structured(void*, xmlErrorPtr) {}

// While it lives, libxml2 errors raised outside a parser context on this
// thread go nowhere instead of stderr (the handlers are per thread in a
// thread-enabled libxml2); the parser's own go to its serror callback.
class QuietLibxml {
 public:
  QuietLibxml()
      : generic_(xmlGenericError),
        generic_context_(xmlGenericErrorContext),
        structured_(xmlStructuredError),
        structured_context_(xmlStructuredErrorContext) {
    init_libxml_once();
    xmlSetGenericErrorFunc(nullptr, &ignore_generic);
    xmlSetStructuredErrorFunc(nullptr, &ignore_structured);
  }
  ~QuietLibxml() {
    xmlSetStructuredErrorFunc(structured_context_, structured_);
    xmlSetGenericErrorFunc(generic_context_, generic_);
  }
  QuietLibxml(const QuietLibxml&) = delete;
  QuietLibxml& operator=(const QuietLibxml&) = delete;

 private:
  xmlGenericErrorFunc generic_;
  void* generic_context_;
  xmlStructuredErrorFunc structured_;
  void* structured_context_;
};

// Whitespace as XML (and a text sitemap's lines) know it.
bool is_xml_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The text of one field (<loc>, <lastmod>, a text line), kept to `cap`
// characters after trimming: leading whitespace is skipped as it comes,
// trailing whitespace is held apart until something follows it, and past
// the cap nothing more is stored, only that it overflowed.
class BoundedField {
 public:
  void reset(std::size_t cap) {
    cap_ = cap;
    text_.clear();
    spaces_.clear();
    overflow_ = false;
  }
  void append(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = s[i];
      if (overflow_) return;
      if (is_xml_space(c)) {
        if (text_.empty()) continue;
        if (spaces_.size() > cap_) continue;  // any text after it overflows
        spaces_ += c;
        continue;
      }
      if (text_.size() + spaces_.size() + 1 > cap_) {
        overflow_ = true;
        text_.clear();
        spaces_.clear();
        return;
      }
      text_ += spaces_;
      spaces_.clear();
      text_ += c;
    }
  }
  bool overflow() const { return overflow_; }
  const std::string& text() const { return text_; }
  std::size_t retained_bytes() const { return text_.capacity() + spaces_.capacity(); }

 private:
  std::size_t cap_ = 0;
  std::string text_;
  std::string spaces_;
  bool overflow_ = false;
};

// The namespaces a sitemap's own elements may be in: the protocol's (also
// as https, which generators write), Google's older ones, and none.
bool is_sitemap_namespace(const xmlChar* prefix, const xmlChar* uri) {
  if (uri == nullptr) return prefix == nullptr;  // an undeclared prefix is not "no namespace"
  const char* u = reinterpret_cast<const char*>(uri);
  return std::strcmp(u, "http://www.sitemaps.org/schemas/sitemap/0.9") == 0 ||
         std::strcmp(u, "https://www.sitemaps.org/schemas/sitemap/0.9") == 0 ||
         std::strcmp(u, "http://www.google.com/schemas/sitemap/0.9") == 0 ||
         std::strcmp(u, "http://www.google.com/schemas/sitemap/0.84") == 0;
}

bool named(const xmlChar* name, const char* expected) {
  return std::strcmp(reinterpret_cast<const char*>(name), expected) == 0;
}

std::optional<double> parse_priority(const std::string& text) {
  // "0", "1", "0.5", "1.0", ".8": a decimal from 0 to 1.
  if (text.empty() || text.size() > 16) return std::nullopt;
  double value = 0;
  double scale = 0;
  bool any_digit = false;
  for (const char c : text) {
    if (c == '.' && scale == 0) {
      scale = 1;
    } else if (ascii::is_digit(c)) {
      any_digit = true;
      if (scale == 0) {
        value = value * 10 + (c - '0');
      } else {
        scale /= 10;
        value += (c - '0') * scale;
      }
    } else {
      return std::nullopt;
    }
  }
  if (!any_digit || value > 1.0) return std::nullopt;
  return value;
}

std::string parse_changefreq(const std::string& text) {
  static constexpr const char* kWords[] = {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"};
  const std::string lower = ascii::lowercase(text);
  for (const char* word : kWords)
    if (lower == word) return lower;
  return {};
}

constexpr unsigned char kBom[] = {0xEF, 0xBB, 0xBF};
// Bytes of one piece handed from a feed to the XML stage at a time, so a
// large feed is never copied whole.
constexpr std::size_t kSlice = 64 * 1024;
// <lastmod>, <changefreq> and <priority> longer than this are not values.
constexpr std::size_t kMaxShortField = 64;

}  // namespace

class SitemapParser::Impl {
 public:
  Impl(SitemapScope scope, Options options) : scope_(std::move(scope)), options_(options) {
    if (options_.xml_push_bytes == 0) options_.xml_push_bytes = 1;
  }

  ~Impl() { free_xml(); }

  void feed(std::string_view bytes) {
    if (done()) return;
    QuietLibxml quiet;
    bytes_in_ += bytes.size();
    if (!sniffed_) {
      // The gzip magic is two bytes; a first feed of one is held.
      if (head_.size() + bytes.size() < 2) {
        head_.append(bytes);
        return;
      }
      sniff(head_ + std::string(bytes.substr(0, 2 - head_.size())));
      std::string held;
      held.swap(head_);
      raw(held);
    }
    raw(bytes);
    if (error_ != SitemapError::none) release();
  }

  void finish() {
    if (done()) return;
    QuietLibxml quiet;
    if (!sniffed_) {
      sniff(head_);
      std::string held;
      held.swap(head_);
      raw(held);
    }
    if (error_ == SitemapError::none && gunzip_ &&
        gunzip_->finish() == BoundedGunzip::Status::truncated)
      fail_after_pending(SitemapError::gzip_truncated, "the body ended inside a gzip member");
    if (error_ == SitemapError::none) {
      if (body_ == Body::xml) {
        push_xml(pending_, true);
        if (error_ == SitemapError::none && kind_ == SitemapKind::unknown)
          fail(SitemapError::not_sitemap, "no root element");
      } else if (body_ == Body::text) {
        end_line();
      }
    }
    release();
    finished_ = true;
  }

  std::vector<SitemapEntry> take_entries() {
    std::vector<SitemapEntry> out;
    out.swap(entries_);
    entries_bytes_ = 0;
    return out;
  }

  void on_entry(std::function<void(SitemapEntry&&)> sink) {
    sink_ = std::move(sink);
    if (!sink_) return;
    for (auto& entry : take_entries()) sink_(std::move(entry));
  }

  bool done() const { return finished_ || error_ != SitemapError::none; }
  SitemapKind kind() const { return kind_; }
  SitemapError error() const { return error_; }
  const SitemapCounts& counts() const { return counts_; }

  SitemapReport report() const {
    SitemapReport r;
    r.kind = kind_;
    r.error = error_;
    r.error_detail = detail_;
    r.gzipped = gzipped_;
    r.bytes_in = bytes_in_;
    r.bytes_decoded = decoded_bytes_;
    r.counts = counts_;
    return r;
  }

  std::size_t retained_bytes() const {
    std::size_t n = head_.capacity() + pending_.capacity() + detail_.capacity();
    n += loc_.retained_bytes() + lastmod_.retained_bytes() + changefreq_.retained_bytes() +
         priority_.retained_bytes() + line_.retained_bytes();
    n += entries_.capacity() * sizeof(SitemapEntry) + entries_bytes_;
    n += ns_counts_.capacity() * sizeof(int);
    if (gunzip_) n += gunzip_->retained_bytes();
    if (ctxt_ != nullptr && ctxt_->input != nullptr && ctxt_->input->base != nullptr)
      n += static_cast<std::size_t>(ctxt_->input->end - ctxt_->input->base);
    return n;
  }

 private:
  enum class Body { undecided, xml, text };

  // --- bytes as fetched ---------------------------------------------------

  void sniff(std::string_view head) {
    sniffed_ = true;
    gzipped_ = BoundedGunzip::is_gzip(head);
    if (gzipped_) gunzip_ = std::make_unique<BoundedGunzip>(options_.max_bytes);
  }

  void raw(std::string_view bytes) {
    if ( error_ != SitemapError::none || bytes.empty()) return;
    if (gunzip_) {
      const auto status = gunzip_->feed(bytes, [this](std::string_view out) {
        decoded(out);
        return error_ == SitemapError::none;
      });
      if (error_ == SitemapError::none) {
        if (status == BoundedGunzip::Status::over_cap)
          fail_after_pending(SitemapError::gzip_bomb,
                             "inflates past " + std::to_string(options_.max_bytes) + " bytes");
        else if (status == BoundedGunzip::Status::corrupt)
          fail_after_pending(SitemapError::gzip_corrupt, gunzip_->message());
      }
      return;
    }
    const std::uint64_t room = options_.max_bytes - decoded_bytes_;
    if (bytes.size() > room) {
      decoded(bytes.substr(0, room));
      if (error_ == SitemapError::none)
        fail_after_pending(SitemapError::too_large, "more than " + std::to_string(options_.max_bytes) + " bytes");
      return;
    }
    decoded(bytes);
  }

  // --- the uncompressed body ----------------------------------------------

  void decoded(std::string_view data) {
    decoded_bytes_ += data.size();
    while (body_ == Body::undecided && !data.empty()) {
      const auto c = static_cast<unsigned char>(data.front());
      if (bom_seen_ < 3 && c == kBom[bom_seen_] && !leading_space_) {
        ++bom_seen_;
        data.remove_prefix(1);
      } else if (is_xml_space(static_cast<char>(c))) {
        // Whitespace before "<?xml" is an XML error, but common (a
        // generator's stray newline) and harmless: skipped.
        leading_space_ = true;
        data.remove_prefix(1);
      } else {
        body_ = c == '<' ? Body::xml : Body::text;
        if (body_ == Body::text) {
          kind_ = SitemapKind::text;
          line_.reset(kMaxUrlLength);
        }
      }
    }
    if (data.empty()) return;
    if (body_ == Body::xml)
      xml_input(data);
    else
      text_input(data);
  }

  // --- plain text ---------------------------------------------------------

  void text_input(std::string_view data) {
    if (std::memchr(data.data(), '\0', data.size()) != nullptr) {
      // Complete lines before the NUL are still read.
      const std::size_t nul = data.find('\0');
      const std::size_t last_newline = data.rfind('\n', nul);
      if (last_newline != std::string_view::npos) text_input(data.substr(0, last_newline + 1));
      fail(SitemapError::not_sitemap, "a NUL byte: binary data, not a text sitemap");
      return;
    }
    while (!data.empty()) {
      const void* nl = std::memchr(data.data(), '\n', data.size());
      if (nl == nullptr) {
        line_.append(data.data(), data.size());
        line_started_ = true;
        return;
      }
      const std::size_t n = static_cast<const char*>(nl) - data.data();
      line_.append(data.data(), n);
      line_started_ = true;
      end_line();
      data.remove_prefix(n + 1);
    }
  }

  void end_line() {
    if (!line_started_) return;
    line_started_ = false;
    if (!line_.text().empty() || line_.overflow()) {
      Candidate c;
      c.loc = &line_;
      accept(c);
    }
    line_.reset(kMaxUrlLength);
  }

  // --- XML ----------------------------------------------------------------

  void xml_input(std::string_view data) {
    while (!data.empty() && error_ == SitemapError::none) {
      std::string_view slice = data.substr(0, kSlice);
      data.remove_prefix(slice.size());
      const std::size_t trip = guard_.scan(slice);
      if (trip != XmlMarkupGuard::npos) {
        // What came before the oversized markup is still read.
        pending_.append(slice.substr(0, trip));
        push_xml(pending_, false);
        pending_.clear();
        if (error_ == SitemapError::none)
          fail(SitemapError::markup_too_large, "a tag, comment or declaration over " +
                                                   std::to_string(XmlMarkupGuard::kMaxMarkupBytes) +
                                                   " bytes or " + std::to_string(XmlMarkupGuard::kMaxAttributes) +
                                                   " attributes");
        return;
      }
      if (pending_.empty() && slice.size() >= options_.xml_push_bytes) {
        push_xml(slice, false);
        continue;
      }
      pending_.append(slice);
      if (pending_.size() >= options_.xml_push_bytes) {
        push_xml(pending_, false);
        pending_.clear();
      }
    }
  }

  void push_xml(std::string_view data, bool terminate) {
    if (error_ != SitemapError::none) return;
    if (ctxt_ == nullptr && !start_xml()) return;
    do {
      const std::size_t n = std::min<std::size_t>(data.size(), INT_MAX / 2);
      const bool last = n == data.size();
      xmlParseChunk(ctxt_, data.data(), static_cast<int>(n), terminate && last ? 1 : 0);
      data.remove_prefix(n);
      if (error_ == SitemapError::none && ctxt_->wellFormed == 0)
        fail(kind_ == SitemapKind::unknown ? SitemapError::not_sitemap : SitemapError::malformed,
             "not well-formed XML");
    } while (!data.empty() && error_ == SitemapError::none);
  }

  bool start_xml() {
    xmlSAXHandler sax;
    std::memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = &Impl::on_start;
    sax.endElementNs = &Impl::on_end;
    sax.characters = &Impl::on_text;
    sax.cdataBlock = &Impl::on_text;
    sax.entityDecl = &Impl::on_entity_decl;
    sax.unparsedEntityDecl = &Impl::on_unparsed_entity_decl;
    sax.elementDecl = &Impl::on_element_decl;
    sax.attributeDecl = &Impl::on_attribute_decl;
    sax.notationDecl = &Impl::on_notation_decl;
    sax.serror = &Impl::on_error;
    // No getEntity, resolveEntity or externalSubset: nothing is looked up
    // or loaded; the five predefined entities and character references are
    // the parser's own.
    ctxt_ = xmlCreatePushParserCtxt(&sax, this, nullptr, 0, nullptr);
    if (ctxt_ == nullptr) {
      fail(SitemapError::malformed, "out of memory");
      return false;
    }
    // No XML_PARSE_NOENT (entities stay unexpanded), no DTDLOAD or
    // DTDATTR, no HUGE (libxml2's own limits on names, text and lookahead
    // stay on), no RECOVER (the first error ends the document).
    xmlCtxtUseOptions(ctxt_, XML_PARSE_NONET);
    ctxt_->replaceEntities = 0;
    return true;
  }

  void free_xml() {
    if (ctxt_ == nullptr) return;
    // An entity declaration makes libxml2 build a document to hold it
    // ("for expat compatibility in SAX mode", parser.c), which the context
    // does not free.
    if (ctxt_->myDoc != nullptr) {
      xmlFreeDoc(ctxt_->myDoc);
      ctxt_->myDoc = nullptr;
    }
    xmlFreeParserCtxt(ctxt_);
    ctxt_ = nullptr;
  }

  static Impl* self(void* ctx) { return static_cast<Impl*>(ctx); }

  static void on_start(void* ctx, const xmlChar* localname, const xmlChar* prefix, const xmlChar* uri,
                       int nb_namespaces, const xmlChar**, int, int, const xmlChar**) {
    self(ctx)->start_element(localname, prefix, uri, nb_namespaces);
  }

  static void on_end(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) { self(ctx)->end_element(); }

  static void on_text(void* ctx, const xmlChar* text, int len) {
    Impl* s = self(ctx);
    if (s->field_ != nullptr && s->depth_ == 3 && len > 0)
      s->field_->append(reinterpret_cast<const char*>(text), static_cast<std::size_t>(len));
  }

  static void on_entity_decl(void* ctx, const xmlChar*, int, const xmlChar*, const xmlChar*, xmlChar*) {
    self(ctx)->stop(SitemapError::entities, "the DTD declares an entity");
  }
  static void on_unparsed_entity_decl(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*, const xmlChar*) {
    self(ctx)->stop(SitemapError::entities, "the DTD declares an entity");
  }
  static void on_element_decl(void* ctx, const xmlChar*, int, xmlElementContentPtr) {
    self(ctx)->stop(SitemapError::dtd, "the DTD declares an element");
  }
  static void on_attribute_decl(void* ctx, const xmlChar*, const xmlChar*, int, int, const xmlChar*,
                                xmlEnumerationPtr tree) {
    // The parser hands the enumeration over to this callback.
    if (tree != nullptr) xmlFreeEnumeration(tree);
    self(ctx)->stop(SitemapError::dtd, "the DTD declares an attribute list");
  }
  static void on_notation_decl(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    self(ctx)->stop(SitemapError::dtd, "the DTD declares a notation");
  }

  static void on_error(void* ctx, xmlErrorPtr error) {
    Impl* s = self(ctx);
    if (error == nullptr || error->level != XML_ERR_FATAL || s->error_ != SitemapError::none) return;
    std::string message = error->message != nullptr ? error->message : "not well-formed XML";
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    if (message.size() > 200) message.resize(200);
    if (error->line > 0) message = "line " + std::to_string(error->line) + ": " + message;
    s->fail(s->kind_ == SitemapKind::unknown ? SitemapError::not_sitemap : SitemapError::malformed,
            std::move(message));
  }

  void start_element(const xmlChar* localname, const xmlChar* prefix, const xmlChar* uri, int nb_namespaces) {
    if (error_ != SitemapError::none) return;
    ++depth_;
    ns_counts_.push_back(nb_namespaces);
    ns_in_scope_ += static_cast<std::size_t>(nb_namespaces);
    if (depth_ > kMaxNesting) {
      stop(SitemapError::nesting, "elements nested deeper than " + std::to_string(kMaxNesting));
      return;
    }
    if (ns_in_scope_ > kMaxNamespacesInScope) {
      stop(SitemapError::too_complex, "more than " + std::to_string(kMaxNamespacesInScope) + " namespaces in scope");
      return;
    }
    if (static_cast<std::size_t>(xmlDictSize(ctxt_->dict)) > kMaxNames) {
      stop(SitemapError::too_complex, "more than " + std::to_string(kMaxNames) + " distinct names");
      return;
    }
    const bool ours = is_sitemap_namespace(prefix, uri);
    if (depth_ == 1) {
      if (ours && named(localname, "urlset")) {
        kind_ = SitemapKind::urlset;
      } else if (ours && named(localname, "sitemapindex")) {
        kind_ = SitemapKind::index;
      } else {
        stop(SitemapError::not_sitemap, std::string("the root element is <") +
                                            reinterpret_cast<const char*>(localname) +
                                            ">, not <urlset> or <sitemapindex>");
      }
      return;
    }
    if (depth_ == 2) {
      in_item_ = ours && named(localname, kind_ == SitemapKind::urlset ? "url" : "sitemap");
      if (in_item_) {
        item_ = Candidate{};
        loc_.reset(kMaxUrlLength);
      }
      return;
    }
    if (depth_ == 3 && in_item_ && ours) {
      if (named(localname, "loc") && item_.loc == nullptr) {
        item_.loc = &loc_;
        field_ = &loc_;
      } else if (named(localname, "lastmod") && item_.lastmod == nullptr) {
        lastmod_.reset(kMaxShortField);
        item_.lastmod = &lastmod_;
        field_ = &lastmod_;
      } else if (kind_ == SitemapKind::urlset && named(localname, "changefreq") && item_.changefreq == nullptr) {
        changefreq_.reset(kMaxShortField);
        item_.changefreq = &changefreq_;
        field_ = &changefreq_;
      } else if (kind_ == SitemapKind::urlset && named(localname, "priority") && item_.priority == nullptr) {
        priority_.reset(kMaxShortField);
        item_.priority = &priority_;
        field_ = &priority_;
      }
    }
  }

  void end_element() {
    if (error_ != SitemapError::none || depth_ == 0) return;
    if (depth_ == 3) field_ = nullptr;
    if (depth_ == 2 && in_item_) {
      in_item_ = false;
      accept(item_);
      item_ = Candidate{};
    }
    ns_in_scope_ -= static_cast<std::size_t>(ns_counts_.back());
    ns_counts_.pop_back();
    --depth_;
  }

  // --- entries ------------------------------------------------------------

  // The fields of one entry as read (null: the element was absent).
  struct Candidate {
    const BoundedField* loc = nullptr;
    const BoundedField* lastmod = nullptr;
    const BoundedField* changefreq = nullptr;
    const BoundedField* priority = nullptr;
  };

  void drop(SitemapDrop why) { ++counts_.dropped[static_cast<int>(why)]; }

  void accept(const Candidate& c) {
    ++counts_.urls_found;
    if (counts_.urls_found > options_.max_entries) return drop(SitemapDrop::over_limit);
    if (c.loc == nullptr) return drop(SitemapDrop::missing_loc);
    if (c.loc->overflow()) return drop(SitemapDrop::too_long);
    if (c.loc->text().empty()) return drop(SitemapDrop::invalid_url);
    UrlError why = UrlError::none;
    std::optional<Url> url = Url::parse(c.loc->text(), &why);
    if (!url) {
      return drop(why == UrlError::unsupported_scheme ? SitemapDrop::not_http
                  : why == UrlError::too_long         ? SitemapDrop::too_long
                                                      : SitemapDrop::invalid_url);
    }
    if (const auto outside = scope_.check(*url)) return drop(*outside);
    SitemapEntry entry;
    entry.url = url->str();
    if (c.lastmod != nullptr) {
      entry.lastmod_ms = c.lastmod->overflow() ? std::nullopt : parse_w3c_datetime(c.lastmod->text());
      if (!entry.lastmod_ms) ++counts_.lastmod_invalid;
    } else if (kind_ != SitemapKind::text) {
      ++counts_.lastmod_missing;
    }
    if (c.changefreq != nullptr && !c.changefreq->overflow()) entry.changefreq = parse_changefreq(c.changefreq->text());
    if (c.priority != nullptr && !c.priority->overflow()) entry.priority = parse_priority(c.priority->text());
    ++counts_.urls_accepted;
    if (sink_) return sink_(std::move(entry));
    entries_bytes_ += entry.url.capacity() + entry.changefreq.capacity();
    entries_.push_back(std::move(entry));
  }

  // --- errors -------------------------------------------------------------

  void fail(SitemapError error, std::string detail) {
    if (error_ != SitemapError::none) return;
    error_ = error;
    detail_ = std::move(detail);
  }

  // An error of the body itself (its gzip, its size), found with XML still
  // held back for libxml2 (xml_push_bytes): what was inflated before it is
  // read first, so the entries it completes are delivered however the body
  // was cut, as a late error promises.
  void fail_after_pending(SitemapError error, std::string detail) {
    if (error_ == SitemapError::none && body_ == Body::xml && !pending_.empty()) {
      push_xml(pending_, false);
      pending_.clear();
    }
    fail(error, std::move(detail));
  }

  // From inside a SAX callback: the error, and libxml2 told to stop.
  void stop(SitemapError error, std::string detail) {
    fail(error, std::move(detail));
    xmlStopParser(ctxt_);
  }

  // A finished or failed document keeps only its counts and untaken
  // entries.
  void release() {
    free_xml();
    gunzip_.reset();
    std::string().swap(pending_);
    std::string().swap(head_);
    loc_.reset(0);
    lastmod_.reset(0);
    changefreq_.reset(0);
    priority_.reset(0);
    line_.reset(0);
  }

  SitemapScope scope_;
  Options options_;

  bool finished_ = false;
  bool sniffed_ = false;
  bool gzipped_ = false;
  std::string head_;  // a first byte, until the second tells gzip apart
  std::unique_ptr<BoundedGunzip> gunzip_;
  std::uint64_t bytes_in_ = 0;
  std::uint64_t decoded_bytes_ = 0;

  Body body_ = Body::undecided;
  int bom_seen_ = 0;
  bool leading_space_ = false;

  // Text sitemaps.
  BoundedField line_;
  bool line_started_ = false;

  // XML.
  XmlMarkupGuard guard_;
  std::string pending_;  // bytes not yet given to libxml2
  xmlParserCtxtPtr ctxt_ = nullptr;
  std::size_t depth_ = 0;
  std::vector<int> ns_counts_;  // namespace declarations per open element
  std::size_t ns_in_scope_ = 0;
  bool in_item_ = false;
  Candidate item_;
  BoundedField* field_ = nullptr;  // the field whose text is being read
  BoundedField loc_, lastmod_, changefreq_, priority_;

  SitemapKind kind_ = SitemapKind::unknown;
  SitemapError error_ = SitemapError::none;
  std::string detail_;
  SitemapCounts counts_;
  std::vector<SitemapEntry> entries_;
  std::size_t entries_bytes_ = 0;
  std::function<void(SitemapEntry&&)> sink_;
};

SitemapParser::SitemapParser(SitemapScope scope) : SitemapParser(std::move(scope), Options{}) {}
SitemapParser::SitemapParser(SitemapScope scope, Options options)
    : impl_(std::make_unique<Impl>(std::move(scope), options)) {}
SitemapParser::~SitemapParser() = default;
SitemapParser::SitemapParser(SitemapParser&&) noexcept = default;
SitemapParser& SitemapParser::operator=(SitemapParser&&) noexcept = default;

void SitemapParser::feed(std::string_view bytes) { impl_->feed(bytes); }
void SitemapParser::finish() { impl_->finish(); }
std::vector<SitemapEntry> SitemapParser::take_entries() { return impl_->take_entries(); }
void SitemapParser::on_entry(std::function<void(SitemapEntry&&)> sink) { impl_->on_entry(std::move(sink)); }
bool SitemapParser::done() const { return impl_->done(); }
SitemapKind SitemapParser::kind() const { return impl_->kind(); }
SitemapError SitemapParser::error() const { return impl_->error(); }
const SitemapCounts& SitemapParser::counts() const { return impl_->counts(); }
SitemapReport SitemapParser::report() const { return impl_->report(); }
std::size_t SitemapParser::retained_bytes() const { return impl_->retained_bytes(); }

}  // namespace actorcrawl
