#include "core/extract/html_attribute_cap.h"

#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

// libxml2's IS_BLANK_CH: what separates attributes.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The characters of libxml2's htmlParseHTMLName.
bool is_name_start(char c) { return ascii::is_alpha(c) || c == '_' || c == ':' || c == '.'; }
bool is_name_char(char c) { return is_name_start(c) || ascii::is_digit(c) || c == '-'; }

class AttributeCapper {
 public:
  AttributeCapper(std::string_view html, std::size_t max_attributes) : s_(html), max_(max_attributes) {}

  std::optional<std::string> run() {
    while ((i_ = s_.find('<', i_)) != std::string_view::npos) {
      if (s_.compare(i_, 4, "<!--") == 0) {
        skip_past(i_ + 4, "-->");
      } else if (i_ + 1 < s_.size() && (s_[i_ + 1] == '!' || s_[i_ + 1] == '?' || s_[i_ + 1] == '/')) {
        skip_past(i_ + 2, ">");
      } else if (i_ + 1 < s_.size() && is_name_start(s_[i_ + 1])) {
        start_tag();
      } else {
        ++i_;
      }
    }
    if (!cut_)
      return std::nullopt;
    out_.append(s_.substr(copied_));
    return std::move(out_);
  }

 private:
  void skip_past(std::size_t from, std::string_view end) {
    const std::size_t at = s_.find(end, from);
    i_ = at == std::string_view::npos ? s_.size() : at + end.size();
  }

  bool at_tag_end() const {
    return i_ >= s_.size() || s_[i_] == '>' || s_[i_] == '\0' ||
           (s_[i_] == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '>');
  }

  void start_tag() {
    const std::size_t name_start = ++i_;
    while (i_ < s_.size() && is_name_char(s_[i_])) ++i_;
    const std::string name = ascii::lowercase(s_.substr(name_start, i_ - name_start));
    std::size_t count = 0;
    std::size_t cut_from = std::string_view::npos;
    for (;;) {
      while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
      if (at_tag_end())
        break;
      if (++count > max_ && cut_from == std::string_view::npos)
        cut_from = i_;
      attribute();
    }
    if (cut_from != std::string_view::npos) {
      out_.append(s_.substr(copied_, cut_from - copied_));
      copied_ = i_;
      cut_ = true;
    }
    const bool self_closed = i_ < s_.size() && s_[i_] == '/';
    if (i_ < s_.size() && s_[i_] != '\0')
      i_ += self_closed ? 2 : 1;
    if (!self_closed && (name == "script" || name == "style"))
      skip_raw_text(name);
  }

  // One attribute as libxml2 reads it: a name, then maybe '=' and a value;
  // anything else up to a blank or the tag's end is one bogus attribute.
  void attribute() {
    if (!is_name_start(s_[i_])) {
      while (!at_tag_end() && !is_blank(s_[i_])) ++i_;
      return;
    }
    while (i_ < s_.size() && is_name_char(s_[i_])) ++i_;
    std::size_t after_name = i_;
    while (after_name < s_.size() && is_blank(s_[after_name])) ++after_name;
    if (after_name >= s_.size() || s_[after_name] != '=')
      return;
    i_ = after_name + 1;
    while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      const std::size_t close = s_.find(s_[i_], i_ + 1);
      i_ = close == std::string_view::npos ? s_.size() : close + 1;
      return;
    }
    while (i_ < s_.size() && s_[i_] != '>' && s_[i_] != '\0' && !is_blank(s_[i_])) ++i_;
  }

  // Script and style content ends at "</" and the element's name, in any case.
  void skip_raw_text(const std::string& name) {
    while ((i_ = s_.find("</", i_)) != std::string_view::npos) {
      if (ascii::starts_with_nocase(s_.substr(i_ + 2), name))
        return;
      i_ += 2;
    }
    i_ = s_.size();
  }

  std::string_view s_;
  std::size_t max_;
  std::size_t i_ = 0;
  std::size_t copied_ = 0;  // s_[0, copied_) is in out_, cuts applied
  bool cut_ = false;
  std::string out_;
};

}  // namespace

std::optional<std::string> cap_tag_attributes(std::string_view html, std::size_t max_attributes) {
  return AttributeCapper(html, max_attributes).run();
}

}  // namespace actorcrawl
