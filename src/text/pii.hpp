#pragma once
// PII detection: hand-written scanners for the categories users expect (emails, phone numbers,
// card numbers, IBANs, ...), one pass over each text with no regular expressions, so that
// millions of records scan in seconds. Used by `secpe import --secrets pii` (each detected
// value becomes a secret) and by the leak scan of `secpe run` (text/leak_scan.hpp).
//
// Precision matters as much as recall: a false positive makes a public record private. So every
// scanner checks what it can (Luhn for cards, mod 97 for IBANs, ranges for dates, times, SSNs and
// IPv4 octets) and wants context where a shape alone is ambiguous (a ZIP code follows a state,
// a name is capitalised and on the name list, and a name that is also a common word or a place
// needs a surname or a title after or before it: text/person_names.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace secpe {

enum class PiiCategory : std::uint8_t {
  kEmail,
  kPhoneNumber,
  kCreditCardNumber,
  kIban,
  kSsn,
  kIpAddress,
  kUrl,
  kDate,
  kTime,
  kZipCode,
  kStreet,
  kPerson,
};
inline constexpr std::size_t kPiiCategoryCount = 12;

// "EMAIL", "PHONENUMBER", ...: the names used in options, datasets and reports.
std::string_view pii_category_name(PiiCategory category);
std::optional<PiiCategory> parse_pii_category(std::string_view name);

// A set of categories (bit i = category i).
using PiiCategories = std::uint32_t;
inline constexpr PiiCategories kAllPiiCategories = (1u << kPiiCategoryCount) - 1;
inline constexpr PiiCategories pii_bit(PiiCategory c) { return 1u << static_cast<unsigned>(c); }
// A comma-separated list of category names, or "all"; InputError naming an unknown one.
PiiCategories parse_pii_categories(std::string_view list);

struct PiiMatch {
  PiiCategory category;
  std::size_t begin = 0, end = 0;  // byte range in the text
};

// The non-overlapping matches in `text` of the categories in `wanted`, left to right; at each
// position the scanners are tried from the most specific (URL, email, IBAN, card) to the least
// (person). `out` is cleared first.
void find_pii(std::string_view text, PiiCategories wanted, std::vector<PiiMatch>& out);

}  // namespace secpe
