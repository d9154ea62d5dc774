#include "core/fetch/cookie_jar.h"

#include <curl/curl.h>

#include <array>
#include <ctime>
#include <mutex>
#include <stdexcept>

namespace actorcrawl {

namespace {

void curl_ready() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool is_comment(std::string_view line) {
  return line.empty() || (line.front() == '#' && line.rfind("#HttpOnly_", 0) != 0);
}

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

// Curl lists a cookie until a request finds it expired; what is kept
// between runs leaves expired ones out. Field 5 is the expiry (0: the
// session's).
bool expired(std::string_view line, long long now) {
  std::size_t start = 0;
  for (int field = 0; field < 4; ++field) {
    start = line.find('\t', start);
    if (start == std::string_view::npos)
      return false;
    ++start;
  }
  long long expiry = 0;
  for (std::size_t i = start; i < line.size() && line[i] != '\t'; ++i) {
    if (line[i] < '0' || line[i] > '9' || expiry > 1'000'000'000'000LL)
      return false;
    expiry = expiry * 10 + (line[i] - '0');
  }
  return expiry != 0 && expiry < now;
}

}  // namespace

struct CookieJar::Impl {
  CURLSH* share = nullptr;
  // One mutex per kind of data curl may lock; only cookies (and the
  // share's own bookkeeping) are shared.
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;

  static void lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<Impl*>(user)->locks[static_cast<std::size_t>(data)].lock();
  }
  static void unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<Impl*>(user)->locks[static_cast<std::size_t>(data)].unlock();
  }

  // A handle on the jar alone, for adding and listing cookies.
  struct Handle {
    CURL* easy = curl_easy_init();
    explicit Handle(CURLSH* share) {
      if (easy == nullptr)
        throw std::runtime_error("libcurl: cannot make a handle for the cookie jar");
      curl_easy_setopt(easy, CURLOPT_SHARE, share);
      curl_easy_setopt(easy, CURLOPT_COOKIEFILE, "");
    }
    ~Handle() { curl_easy_cleanup(easy); }
  };

  void add(std::string_view line) {
    Handle h(share);
    const std::string text{line};
    curl_easy_setopt(h.easy, CURLOPT_COOKIELIST, text.c_str());
  }
};

CookieJar::CookieJar() : impl_(std::make_unique<Impl>()) {
  curl_ready();
  impl_->share = curl_share_init();
  if (impl_->share == nullptr)
    throw std::runtime_error("libcurl: cannot make a share handle for the cookie jar");
  curl_share_setopt(impl_->share, CURLSHOPT_LOCKFUNC, &Impl::lock);
  curl_share_setopt(impl_->share, CURLSHOPT_UNLOCKFUNC, &Impl::unlock);
  curl_share_setopt(impl_->share, CURLSHOPT_USERDATA, impl_.get());
  curl_share_setopt(impl_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
}

CookieJar::~CookieJar() { curl_share_cleanup(impl_->share); }

std::string CookieJar::line_problem(std::string_view line) {
  line = without_cr(line);
  std::size_t fields = 1;
  for (char c : line) {
    if (c == '\t')
      ++fields;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "a control character";
  }
  if (fields != 7)
    return "not 7 tab-separated fields (domain, subdomains, path, secure, expiry, name, value)";
  std::array<std::string_view, 7> f;
  std::size_t i = 0;
  for (std::size_t start = 0; i < 7; ++i) {
    const std::size_t tab = line.find('\t', start);
    f[i] = line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
    start = tab + 1;
  }
  if (f[0].empty() || f[0] == "#HttpOnly_")
    return "no domain";
  for (std::size_t flag : {1u, 3u})
    if (f[flag] != "TRUE" && f[flag] != "FALSE")
      return "field " + std::to_string(flag + 1) + " is not TRUE or FALSE";
  if (f[4].empty() || f[4].size() > 19 || f[4].find_first_not_of("0123456789") != std::string_view::npos)
    return "the expiry is not a number of seconds";
  if (f[5].empty())
    return "no name";
  return {};
}

void CookieJar::load_text(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = without_cr(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (is_comment(line))
      continue;
    if (const std::string problem = line_problem(line); !problem.empty())
      throw std::invalid_argument("line " + std::to_string(number) + " is not a cookie: " + problem);
    lines.emplace_back(line);
  }
  for (const auto& line : lines)
    impl_->add(line);
}

void CookieJar::load_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines)
    if (!is_comment(line) && line_problem(line).empty())
      impl_->add(line);
}

std::vector<std::string> CookieJar::lines() const {
  Impl::Handle h(impl_->share);
  curl_slist* list = nullptr;
  std::vector<std::string> out;
  const long long now = static_cast<long long>(std::time(nullptr));
  if (curl_easy_getinfo(h.easy, CURLINFO_COOKIELIST, &list) == CURLE_OK)
    for (const curl_slist* l = list; l != nullptr; l = l->next)
      if (!expired(l->data, now))
        out.emplace_back(l->data);
  curl_slist_free_all(list);
  return out;
}

void* CookieJar::share_handle() const { return impl_->share; }

}  // namespace actorcrawl
