// The PII scanners of text/pii.hpp. Each scanner looks at one token start and returns the byte
// range it matches there (nothing when it does not). All of them are ASCII-only: the shapes they
// look for (digits, '@', ':' ...) are ASCII, and names are matched against ASCII lists.
#include "text/pii.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>

#include "core/error.hpp"
#include "text/person_names.hpp"
#include "text/scan.hpp"

namespace secpe {
namespace {

constexpr std::array<std::string_view, kPiiCategoryCount> kNames = {
    "EMAIL", "PHONENUMBER", "CREDITCARDNUMBER", "IBAN", "SSN", "IPADDRESS", "URL", "DATE", "TIME", "ZIPCODE", "STREET", "PERSON"};

struct Span {
  std::size_t begin = 0, end = 0;
  explicit operator bool() const { return end > begin; }
};

bool digit(char c) { return c >= '0' && c <= '9'; }
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool lower(char c) { return c >= 'a' && c <= 'z'; }
bool alpha(char c) { return upper(c) || lower(c); }
bool alnum(char c) { return alpha(c) || digit(c); }
bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The scanners' view of one text: bounds-safe peeks and runs.
struct Text {
  std::string_view s;
  char at(std::size_t i) const { return i < s.size() ? s[i] : '\0'; }
  std::size_t digits(std::size_t i) const {  // length of the run of digits at i
    std::size_t k = i;
    while (k < s.size() && digit(s[k])) ++k;
    return k - i;
  }
  std::size_t letters(std::size_t i) const {
    std::size_t k = i;
    while (k < s.size() && alpha(s[k])) ++k;
    return k - i;
  }
  // No letter or digit right after `end` (a match never ends inside a word or a number).
  bool ends_token(std::size_t end) const { return !alnum(at(end)); }
  // The digits at [i, i + len) as a number (len <= 9).
  int number(std::size_t i, std::size_t len) const {
    int v = 0;
    for (std::size_t k = 0; k < len; ++k) v = v * 10 + (s[i + k] - '0');
    return v;
  }
  bool starts_with_nocase(std::size_t i, std::string_view prefix) const {
    if (i + prefix.size() > s.size()) return false;
    for (std::size_t k = 0; k < prefix.size(); ++k)
      if (text_detail::lower_ascii(s[i + k]) != prefix[k]) return false;
    return true;
  }
  // A capitalised word at i ("Smith": an upper-case letter, then lower-case letters); its end or 0.
  std::size_t capitalised(std::size_t i) const {
    if (!upper(at(i))) return 0;
    std::size_t k = i + 1;
    while (lower(at(k))) ++k;
    return k - i >= 2 && !alnum(at(k)) ? k : 0;
  }
};

// ---- URL: http://, https:// or www. up to the next space, less trailing punctuation ----
Span scan_url(const Text& t, std::size_t i) {
  std::size_t k;
  if (t.starts_with_nocase(i, "https://")) k = i + 8;
  else if (t.starts_with_nocase(i, "http://")) k = i + 7;
  else if (t.starts_with_nocase(i, "www.")) k = i + 4;
  else return {};
  const std::size_t host = k;
  while (k < t.s.size()) {
    const auto c = static_cast<unsigned char>(t.s[k]);
    if (c <= ' ' || c == '"' || c == '<' || c == '>' || c >= 0x80) break;
    ++k;
  }
  while (k > host && std::string_view(".,;:!?)]}'").find(t.s[k - 1]) != std::string_view::npos) --k;
  if (k - host < 3 || t.s.substr(host, k - host).find('.') == std::string_view::npos) return {};
  return {i, k};
}

// ---- EMAIL: local@domain.tld ----
Span scan_email(const Text& t, std::size_t i) {
  if (!alnum(t.at(i))) return {};
  std::size_t k = i;
  auto local_char = [](char c) { return alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'; };
  while (k < t.s.size() && k - i < 64 && local_char(t.s[k])) ++k;
  if (t.at(k) != '@' || t.s[k - 1] == '.') return {};
  std::size_t end = 0, labels = 0, last_start = 0;
  std::size_t p = k + 1;
  for (;;) {
    const std::size_t start = p;
    while (alnum(t.at(p)) || t.at(p) == '-') ++p;
    if (p == start) break;
    ++labels;
    last_start = start;
    end = p;
    if (t.at(p) != '.' || !alnum(t.at(p + 1))) break;
    ++p;
  }
  if (labels < 2 || end - last_start < 2) return {};
  for (std::size_t q = last_start; q < end; ++q)
    if (!alpha(t.s[q])) return {};  // the top-level domain is letters only
  return {i, end};
}

// ---- IBAN: country, check digits, 11 to 30 letters or digits (spaced in fours or not), mod 97 = 1 ----
Span scan_iban(const Text& t, std::size_t i) {
  if (!upper(t.at(i)) || !upper(t.at(i + 1)) || !digit(t.at(i + 2)) || !digit(t.at(i + 3))) return {};
  std::string chars(t.s.substr(i, 4));
  std::size_t k = i + 4, group = 4;
  while (k < t.s.size() && chars.size() < 34) {
    const char c = t.s[k];
    if (upper(c) || digit(c)) {
      chars.push_back(c);
      ++group;
      ++k;
    } else if (c == ' ' && group == 4 && (upper(t.at(k + 1)) || digit(t.at(k + 1)))) {
      group = 0;
      ++k;
    } else {
      break;
    }
  }
  if (chars.size() < 15 || !t.ends_token(k)) return {};
  // Move the first four characters to the end, letters to 10..35, and take the number mod 97.
  std::rotate(chars.begin(), chars.begin() + 4, chars.end());
  int mod = 0;
  for (char c : chars) {
    const int v = digit(c) ? c - '0' : c - 'A' + 10;
    mod = v >= 10 ? (mod * 100 + v) % 97 : (mod * 10 + v) % 97;
  }
  return mod == 1 ? Span{i, k} : Span{};
}

// ---- CREDITCARDNUMBER: 13 to 19 digits, grouped by spaces or dashes or not, Luhn-valid ----
bool luhn_ok(const std::string& digits) {
  int sum = 0;
  bool twice = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int d = *it - '0';
    if (twice && (d *= 2) > 9) d -= 9;
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

Span scan_card(const Text& t, std::size_t i) {
  if (!digit(t.at(i)) || t.at(i) == '0') return {};  // no card number starts with 0
  std::string digits;
  std::vector<std::pair<std::size_t, std::size_t>> ends;  // (byte end, digit count) at group ends
  std::size_t k = i;
  for (;;) {
    const std::size_t run = t.digits(k);
    if (run == 0) break;
    digits.append(t.s.substr(k, run));
    k += run;
    ends.emplace_back(k, digits.size());
    if (digits.size() > 19) break;
    // Grouped numbers come in groups of 4 (and 6 for 15-digit cards).
    if ((run == 4 || run == 6) && (t.at(k) == ' ' || t.at(k) == '-') && digit(t.at(k + 1))) ++k;
    else break;
  }
  // The longest prefix of whole groups that is a valid card number.
  for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
    const auto [end, count] = *it;
    if (count < 13 || count > 19 || !t.ends_token(end)) continue;
    if (luhn_ok(digits.substr(0, count))) return {i, end};
  }
  return {};
}

// ---- SSN: ddd-dd-dddd with a valid area (not 000, 666 or 9xx), group and serial ----
Span scan_ssn(const Text& t, std::size_t i) {
  if (t.digits(i) != 3 || t.at(i + 3) != '-' || t.digits(i + 4) != 2 || t.at(i + 6) != '-' || t.digits(i + 7) != 4) return {};
  const std::size_t end = i + 11;
  if (!t.ends_token(end) || (t.at(end) == '-' && digit(t.at(end + 1)))) return {};
  const int area = t.number(i, 3), group = t.number(i + 4, 2), serial = t.number(i + 7, 4);
  if (area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0) return {};
  return {i, end};
}

// ---- IPADDRESS: dotted IPv4 (octets <= 255) or IPv6 (8 hex groups, or fewer with one "::") ----
Span scan_ipv4(const Text& t, std::size_t i) {
  std::size_t k = i;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (t.at(k) != '.') return {};
      ++k;
    }
    const std::size_t run = t.digits(k);
    if (run == 0 || run > 3 || t.number(k, run) > 255) return {};
    k += run;
  }
  if (!t.ends_token(k) || (t.at(k) == '.' && digit(t.at(k + 1)))) return {};
  return {i, k};
}

Span scan_ipv6(const Text& t, std::size_t i) {
  std::size_t k = i, groups = 0;
  bool compressed = false, letter = false;
  for (;;) {
    std::size_t run = 0;
    while (run < 5 && hex(t.at(k + run))) ++run;
    if (run == 0 || run > 4) break;
    for (std::size_t q = k; q < k + run; ++q) letter = letter || alpha(t.s[q]);
    k += run;
    ++groups;
    if (t.at(k) != ':') break;
    if (t.at(k + 1) == ':') {
      if (compressed) return {};
      compressed = true;
      k += 2;
      if (!hex(t.at(k))) break;  // "fe80::"
    } else if (hex(t.at(k + 1))) {
      ++k;
    } else {
      break;
    }
  }
  if (!t.ends_token(k) || t.at(k) == ':') return {};
  // Full form, or "::" with at least two groups (plus a hex letter for short ones, so that a
  // time such as "10::30" in a typo is left alone).
  const bool ok = compressed ? groups >= 2 && groups <= 7 && (letter || groups >= 4) : groups == 8;
  return ok ? Span{i, k} : Span{};
}

// ---- DATE: numeric (m/d/yyyy, yyyy-mm-dd, d.m.yyyy) or with a capitalised month name ----
bool day_month(int a, int b) { return (a >= 1 && a <= 12 && b >= 1 && b <= 31) || (a >= 1 && a <= 31 && b >= 1 && b <= 12); }

Span scan_numeric_date(const Text& t, std::size_t i) {
  const std::size_t a = t.digits(i);
  const char sep = t.at(i + a);
  if (sep != '/' && sep != '-' && sep != '.') return {};
  const std::size_t b_at = i + a + 1, b = t.digits(b_at);
  if (t.at(b_at + b) != sep) return {};
  const std::size_t c_at = b_at + b + 1, c = t.digits(c_at);
  const std::size_t end = c_at + c;
  if (!t.ends_token(end) || t.at(end) == sep) return {};
  if (a == 4 && b >= 1 && b <= 2 && c >= 1 && c <= 2) {  // yyyy-mm-dd
    const int y = t.number(i, 4), m = t.number(b_at, b), d = t.number(c_at, c);
    return y >= 1900 && y <= 2099 && m >= 1 && m <= 12 && d >= 1 && d <= 31 ? Span{i, end} : Span{};
  }
  if (a >= 1 && a <= 2 && b >= 1 && b <= 2 && (c == 2 || c == 4)) {  // m/d/yy, d.m.yyyy
    const int y = t.number(c_at, c);
    if (c == 4 && (y < 1900 || y > 2099)) return {};
    return day_month(t.number(i, a), t.number(b_at, b)) ? Span{i, end} : Span{};
  }
  return {};
}

// The capitalised month name or abbreviation ("March", "Mar", "Mar.", "Sept") at i: its end, or 0.
std::size_t month_at(const Text& t, std::size_t i, bool full_only) {
  static constexpr std::string_view kMonths[] = {"january", "february", "march", "april", "may", "june", "july",
                                                 "august", "september", "october", "november", "december"};
  if (!upper(t.at(i))) return 0;
  const std::size_t len = t.letters(i);
  if (len < 3 || digit(t.at(i + len))) return 0;
  for (const auto m : kMonths) {
    if (len == m.size() && t.starts_with_nocase(i, m)) return i + len;
    if (full_only || len > m.size()) continue;
    const bool abbrev = len == 3 || (len == 4 && m == "september");  // "Mar", "Sept"
    if (abbrev && t.starts_with_nocase(i, m.substr(0, len))) return i + len + (t.at(i + len) == '.' ? 1 : 0);
  }
  return 0;
}

// A day of the month (1 to 31, optional st/nd/rd/th) at i: its end, or 0.
std::size_t day_at(const Text& t, std::size_t i) {
  const std::size_t run = t.digits(i);
  if (run == 0 || run > 2) return 0;
  const int d = t.number(i, run);
  if (d < 1 || d > 31) return 0;
  std::size_t k = i + run;
  for (const char* suffix : {"st", "nd", "rd", "th"})
    if (t.starts_with_nocase(k, suffix)) { k += 2; break; }
  return t.ends_token(k) ? k : 0;
}

// A four-digit year (1900 to 2099) at i: its end, or 0.
std::size_t year_at(const Text& t, std::size_t i) {
  if (t.digits(i) != 4) return 0;
  const int y = t.number(i, 4);
  return y >= 1900 && y <= 2099 ? i + 4 : 0;
}

// " 2020" or ", 2020" after `k`: the year's end, else k.
std::size_t optional_year(const Text& t, std::size_t k) {
  std::size_t p = k + (t.at(k) == ',' ? 1 : 0);
  if (t.at(p) != ' ') return k;
  const std::size_t y = year_at(t, p + 1);
  return y ? y : k;
}

Span scan_text_date(const Text& t, std::size_t i) {
  if (upper(t.at(i))) {  // "March 5", "March 5th, 2020", "March 2020"
    const std::size_t m = month_at(t, i, false);
    if (!m || t.at(m) != ' ') return {};
    if (const std::size_t y = year_at(t, m + 1); y && t.ends_token(y)) return {i, y};
    const std::size_t d = day_at(t, m + 1);
    return d ? Span{i, optional_year(t, d)} : Span{};
  }
  const std::size_t d = day_at(t, i);  // "5 March", "5th March 2020" (full month names only)
  if (!d || t.at(d) != ' ') return {};
  const std::size_t m = month_at(t, d + 1, true);
  return m ? Span{i, optional_year(t, m)} : Span{};
}

// ---- TIME: h:mm[:ss] [am|pm] or h am|pm ----
std::size_t meridiem_at(const Text& t, std::size_t k) {
  const std::size_t p = k + (t.at(k) == ' ' ? 1 : 0);
  for (const char* m : {"a.m.", "p.m.", "am", "pm"}) {
    const std::string_view mv(m);
    if (t.starts_with_nocase(p, mv) && (mv.back() == '.' || t.ends_token(p + mv.size()))) return p + mv.size();
  }
  return 0;
}

Span scan_time(const Text& t, std::size_t i) {
  const std::size_t h = t.digits(i);
  if (h == 0 || h > 2) return {};
  const int hour = t.number(i, h);
  std::size_t k = i + h;
  if (t.at(k) == ':') {
    if (t.digits(k + 1) != 2 || t.number(k + 1, 2) > 59 || hour > 23) return {};
    k += 3;
    if (t.at(k) == ':' && t.digits(k + 1) == 2 && t.number(k + 1, 2) <= 59) k += 3;
    if (const std::size_t m = meridiem_at(t, k)) return {i, m};
    if (t.at(k) == ':' || t.at(k) == '.' ? digit(t.at(k + 1)) : !t.ends_token(k)) return {};  // "10:30:15:00", "1:30.5"
    return {i, k};
  }
  if (hour < 1 || hour > 12) return {};
  const std::size_t m = meridiem_at(t, k);
  return m ? Span{i, m} : Span{};
}

// ---- PHONENUMBER: North American (area code and exchange 2-9xx) or +international ----
Span scan_phone(const Text& t, std::size_t i) {
  std::size_t k = i;
  if (t.at(k) == '+') {
    if (t.at(k + 1) == '1' && !digit(t.at(k + 2))) {
      k += 2;
      if (t.at(k) == ' ' || t.at(k) == '-' || t.at(k) == '.') ++k;
    } else {
      // +CC then groups of digits separated by single spaces, dashes or dots: 8 to 15 digits.
      std::size_t digits = 0, p = k + 1, end = 0;
      while (digit(t.at(p))) {
        const std::size_t run = t.digits(p);
        digits += run;
        p += run;
        end = p;
        if ((t.at(p) == ' ' || t.at(p) == '-' || t.at(p) == '.') && digit(t.at(p + 1))) ++p;
      }
      return digits >= 8 && digits <= 15 && t.ends_token(end) ? Span{i, end} : Span{};
    }
  } else if (t.at(k) == '1' && (t.at(k + 1) == '-' || t.at(k + 1) == ' ') && (digit(t.at(k + 2)) || t.at(k + 2) == '(')) {
    k += 2;  // "1-800-..."
  }
  auto nanp = [](int three) { return three >= 200; };
  std::size_t area_at = 0;
  bool has_area = false;
  char sep = 0;
  if (t.at(k) == '(' && t.digits(k + 1) == 3 && t.at(k + 4) == ')') {
    area_at = k + 1;
    has_area = true;
    k += 5;
    if (t.at(k) == ' ') ++k;
    sep = '-';  // "(602) 555-0147" or "(602) 555.0147"
  } else if (t.digits(k) == 3 && (t.at(k + 3) == '-' || t.at(k + 3) == '.' || t.at(k + 3) == ' ') && t.digits(k + 4) == 3) {
    area_at = k;
    has_area = true;
    sep = t.at(k + 3);
    k += 4;
  }
  if (has_area && !nanp(t.number(area_at, 3))) return {};
  if (t.digits(k) != 3 || !nanp(t.number(k, 3))) return {};
  const char s2 = t.at(k + 3);
  if (has_area ? (s2 != sep && !(sep == '-' && s2 == '.')) : s2 != '-') return {};
  if (t.digits(k + 4) != 4) return {};
  const std::size_t end = k + 8;
  if (!t.ends_token(end) || ((t.at(end) == '-' || t.at(end) == '.') && digit(t.at(end + 1)))) return {};
  if (!has_area && i != k) return {};  // "1-555-0147" is not a number
  return {i, end};
}

// ---- ZIPCODE: five digits after a state abbreviation or "zip", or ZIP+4 ----
bool is_state(std::string_view w) {
  static constexpr std::string_view kStates =
      "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK "
      "OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR ON QC AB BC NS";
  for (std::size_t p = 0; p + 2 <= kStates.size(); p += 3)
    if (kStates.substr(p, 2) == w) return true;
  return false;
}

Span zip_digits(const Text& t, std::size_t k, bool plus4_required) {
  if (t.digits(k) != 5) return {};
  std::size_t end = k + 5;
  if (t.at(end) == '-' && t.digits(end + 1) == 4) end += 5;
  else if (plus4_required) return {};
  return t.ends_token(end) && !(t.at(end) == '-' && digit(t.at(end + 1))) ? Span{k, end} : Span{};
}

// The word before position i ("St" in "St. Albert", "Santa" in "Santa Barbara"), or "".
std::string_view previous_word(const Text& t, std::size_t i) {
  std::size_t end = i;
  if (end > 0 && t.s[end - 1] == ' ') --end;
  else return {};
  if (end > 0 && t.s[end - 1] == '.') --end;
  std::size_t begin = end;
  while (begin > 0 && alnum(t.s[begin - 1])) --begin;
  return t.s.substr(begin, end - begin);
}

bool lower_word_in(std::string_view w, std::initializer_list<std::string_view> words) {
  std::string lowered;
  text_detail::append_lower(lowered, w);
  for (const auto word : words)
    if (lowered == word) return true;
  return false;
}

// A bare five-digit code after a place preposition ("deliver within 85004", "from 85255 last
// year"): a ZIP code when nothing makes it a count. Not after "1 in" or "one in" (odds), not a
// round thousand ("within 15000 points"), and followed by the end of the clause or by a word
// that cannot be the unit of a count ("only", "last", "and", ...), never by a noun such as "steps".
Span scan_zip_after_preposition(const Text& t, std::size_t i) {
  const std::string_view before = previous_word(t, i);
  if (!lower_word_in(before, {"within", "in", "near", "around", "from", "to"})) return {};
  const std::string_view two_before = previous_word(t, static_cast<std::size_t>(before.data() - t.s.data()));
  if (!two_before.empty() && (digit(two_before.back()) || lower_word_in(two_before, {"one", "odds"}))) return {};
  const Span zip = zip_digits(t, i, false);
  if (!zip || t.s.substr(zip.end - 3, 3) == "000") return {};
  const char next = t.at(zip.end);
  if (next == '\0' || std::string_view(".,;:!?)").find(next) != std::string_view::npos) return zip;
  if (next != ' ') return {};
  const std::size_t word = zip.end + 1, len = t.letters(word);
  const bool clause_word = len > 0 && lower_word_in(t.s.substr(word, len), {"only", "last", "and", "or", "but", "area", "zip", "for", "because",
                                                                            "since", "so", "too", "anymore", "yet", "today", "now"});
  return clause_word && t.ends_token(word + len) ? zip : Span{};
}

Span scan_zip(const Text& t, std::size_t i) {
  if (digit(t.at(i))) {
    const Span plus4 = zip_digits(t, i, true);
    return plus4 ? plus4 : scan_zip_after_preposition(t, i);
  }
  std::size_t k;
  if (upper(t.at(i)) && upper(t.at(i + 1)) && !alnum(t.at(i + 2)) && is_state(t.s.substr(i, 2))) k = i + 2;
  else if (t.starts_with_nocase(i, "zip code")) k = i + 8;
  else if (t.starts_with_nocase(i, "zipcode")) k = i + 7;
  else if (t.starts_with_nocase(i, "zip")) k = i + 3;
  else return {};
  if (t.at(k) == ':' || t.at(k) == ',') ++k;
  if (t.at(k) != ' ') return {};
  if (k > i + 2 && t.starts_with_nocase(k, " is ")) k += 3;  // "my zip is 61820" (not after a state)
  return zip_digits(t, k + 1, false);  // the match is the code alone
}

// ---- STREET: number, optional direction, 1 to 4 capitalised or ordinal words, a street type ----
bool street_type(std::string_view w) {
  static constexpr std::string_view kTypes[] = {
      "Street", "St", "Avenue", "Ave", "Av", "Road", "Rd", "Boulevard", "Blvd", "Drive", "Dr", "Lane", "Ln", "Way",
      "Parkway", "Pkwy", "Court", "Ct", "Place", "Pl", "Highway", "Hwy", "Circle", "Cir", "Terrace", "Ter", "Trail",
      "Trl", "Square", "Sq", "Loop", "Plaza", "Freeway", "Fwy", "Pike", "Alley"};
  for (const auto type : kTypes)
    if (w == type) return true;
  return false;
}

bool direction(std::string_view w) {
  for (const char* d : {"N", "S", "E", "W", "NE", "NW", "SE", "SW", "North", "South", "East", "West"})
    if (w == d) return true;
  return false;
}

// An ordinal ("7th", "21st", "101st") at i: its end, or 0.
std::size_t ordinal_at(const Text& t, std::size_t i) {
  const std::size_t run = t.digits(i);
  if (run == 0 || run > 3) return 0;
  for (const char* suffix : {"st", "nd", "rd", "th"})
    if (t.starts_with_nocase(i + run, suffix) && t.ends_token(i + run + 2)) return i + run + 2;
  return 0;
}

Span scan_street(const Text& t, std::size_t i) {
  const std::size_t number = t.digits(i);
  if (number == 0 || number > 6) return {};
  std::size_t k = i + number;
  if (upper(t.at(k)) && !alnum(t.at(k + 1))) ++k;  // "12B"
  if (t.at(k) != ' ') return {};
  ++k;
  if (const std::size_t len = t.letters(k); len > 0 && direction(t.s.substr(k, len))) {
    const std::size_t after = k + len + (t.at(k + len) == '.' ? 1 : 0);
    if (t.at(after) == ' ') k = after + 1;
  }
  for (int words = 0; words <= 4; ++words) {
    const std::size_t end = t.capitalised(k) ? t.capitalised(k) : ordinal_at(t, k);
    if (!end) return {};
    if (words > 0 && street_type(t.s.substr(k, end - k))) return {i, end};
    if (t.at(end) != ' ') return {};
    k = end + 1;
  }
  return {};
}

// ---- PERSON: Title Name, First Surname, or an unambiguous first name alone ----
// The capitalised word after a space at `end`, or "".
std::string_view following_word(const Text& t, std::size_t end) {
  const std::size_t next = t.at(end) == ' ' ? t.capitalised(end + 1) : 0;
  return next ? t.s.substr(end + 1, next - end - 1) : std::string_view();
}

// "Ruth's Chris", "Denny's Jessica": a name right after a capitalised possessive belongs to a business.
bool after_possessive(const Text& t, std::size_t i) {
  if (i < 4 || t.s[i - 1] != ' ') return false;
  const std::string_view before = t.s.substr(0, i - 1);
  return before.ends_with("'s") || before.ends_with("\xE2\x80\x99s");
}

Span scan_person(const Text& t, std::size_t i) {
  const std::size_t first_end = t.capitalised(i);
  if (!first_end) return {};
  const std::string_view first = t.s.substr(i, first_end - i);
  // A capitalised word after `k` (" Smith"): its end, or 0.
  auto next_word = [&](std::size_t k) { return t.at(k) == ' ' ? t.capitalised(k + 1) : 0; };
  if (person_names::is_title(first)) {
    const std::size_t after = first_end + (t.at(first_end) == '.' ? 1 : 0);
    const std::size_t name = next_word(after);
    return name ? Span{i, name} : Span{};
  }
  const auto kind = person_names::first_name(first);
  const std::string_view before = previous_word(t, i);
  if (kind == person_names::FirstName::kNo || person_names::is_place_prefix(before) || after_possessive(t, i)) return {};
  // After a word for a person's job or relation ("our waiter", "my realtor") a first name and the
  // capitalised word after it are a person's name ("the bartender Kevin Brennan").
  const bool role = person_names::is_person_noun(before);
  const std::size_t last = next_word(first_end);
  const std::string_view second = last ? t.s.substr(first_end + 1, last - first_end - 1) : std::string_view();
  // A pair that goes on into a business or place ("Holly Berry Farm") names that, not a person; so
  // does a first name that is also a word before a surname that is also one ("Lincoln Park").
  if (last && person_names::ends_a_business_name(following_word(t, last))) return {};
  if (last && person_names::is_surname(second) &&
      !(kind == person_names::FirstName::kAmbiguous && !role && person_names::ends_a_business_name(second))) {
    return {i, last};
  }
  // A surname off the list ("Kevin Brennan") after a clear first name or a role noun, unless the
  // pair reads as a business or a place ("Charles Plaza", "Mary Kitchen") or continues a longer
  // capitalised name ("Prince Edward Island").
  if (last) {
    const bool clear = role || (kind == person_names::FirstName::kYes && !upper(before.empty() ? 'a' : before.front()));
    return clear && !person_names::ends_a_business_name(second) ? Span{i, last} : Span{};
  }
  // A name that is also a word counts only in a pair: alone it would become a secret matched as a
  // word in every record ("our waitress Joy" would make every "joy" private).
  if (kind == person_names::FirstName::kAmbiguous) return {};
  // "Wendy's", "Denny's": a possessive first name alone is more often a business than a person.
  if (t.at(first_end) == '\'' || t.s.substr(first_end).starts_with("\xE2\x80\x99")) return {};
  return {i, first_end};
}

using Scanner = Span (*)(const Text&, std::size_t);
struct Rule {
  PiiCategory category;
  Scanner scan;
};

// Most specific first: at each position the first rule that matches wins.
constexpr Rule kRules[] = {
    {PiiCategory::kUrl, scan_url},           {PiiCategory::kEmail, scan_email},
    {PiiCategory::kIban, scan_iban},         {PiiCategory::kCreditCardNumber, scan_card},
    {PiiCategory::kSsn, scan_ssn},           {PiiCategory::kIpAddress, scan_ipv4},
    {PiiCategory::kIpAddress, scan_ipv6},    {PiiCategory::kDate, scan_numeric_date},
    {PiiCategory::kDate, scan_text_date},    {PiiCategory::kPhoneNumber, scan_phone},
    {PiiCategory::kZipCode, scan_zip},       {PiiCategory::kTime, scan_time},
    {PiiCategory::kStreet, scan_street},     {PiiCategory::kPerson, scan_person},
};

}  // namespace

std::string_view pii_category_name(PiiCategory category) { return kNames[static_cast<std::size_t>(category)]; }

std::optional<PiiCategory> parse_pii_category(std::string_view name) {
  for (std::size_t c = 0; c < kPiiCategoryCount; ++c)
    if (kNames[c] == name) return static_cast<PiiCategory>(c);
  return std::nullopt;
}

PiiCategories parse_pii_categories(std::string_view list) {
  if (list == "all") return kAllPiiCategories;
  PiiCategories out = 0;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    const auto category = parse_pii_category(name);
    if (!category) {
      std::string known;
      for (const auto n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
      throw InputError("unknown PII category '" + std::string(name) + "' (known: " + known + ", or all)");
    }
    out |= pii_bit(*category);
    start = comma + 1;
  }
  return out;
}

void find_pii(std::string_view text, PiiCategories wanted, std::vector<PiiMatch>& out) {
  out.clear();
  const Text t{text};
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    // Matches start at a token: never inside a word or a number, nor after a '$', '#' or '.'
    // (prices, order numbers, decimals and versions are not PII).
    const bool token_start = i == 0 || (!alnum(text[i - 1]) && text[i - 1] != '$' && text[i - 1] != '#' && text[i - 1] != '.' &&
                                        text[i - 1] != '_' && text[i - 1] != '@');
    if (!token_start || !(alnum(c) || c == '+' || c == '(')) {
      ++i;
      continue;
    }
    Span found;
    PiiCategory category{};
    for (const Rule& rule : kRules) {
      if (!(wanted & pii_bit(rule.category))) continue;
      if ((found = rule.scan(t, i))) {
        category = rule.category;
        break;
      }
    }
    if (found) {
      out.push_back({category, found.begin, found.end});
      i = found.end;
    } else {
      ++i;
    }
  }
}

}  // namespace secpe
