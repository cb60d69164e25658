#include "text/leak_scan.hpp"

#include <set>

namespace secpe {

nlohmann::ordered_json LeakCounts::to_json() const {
  nlohmann::ordered_json categories = nlohmann::ordered_json::object();
  for (const auto& [category, count] : by_category) categories[category] = count;
  return {{"texts", texts}, {"flagged", flagged}, {"by_category", categories}};
}

LeakCounts scan_pii_leaks(const std::vector<std::string>& texts) {
  LeakCounts out;
  out.texts = texts.size();
  out.flagged_text.assign(texts.size(), false);
  for (std::size_t c = 0; c < kPiiCategoryCount; ++c) out.by_category[std::string(pii_category_name(static_cast<PiiCategory>(c)))] = 0;
  std::vector<PiiMatch> matches;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    find_pii(texts[i], kAllPiiCategories, matches);
    PiiCategories seen = 0;
    for (const auto& m : matches) seen |= pii_bit(m.category);
    for (std::size_t c = 0; c < kPiiCategoryCount; ++c) {
      if (seen & pii_bit(static_cast<PiiCategory>(c))) ++out.by_category[std::string(pii_category_name(static_cast<PiiCategory>(c)))];
    }
    out.flagged_text[i] = seen != 0;
    out.flagged += seen != 0 ? 1 : 0;
  }
  return out;
}

LeakCounts scan_secret_leaks(const std::vector<std::string>& texts, const SecretSet& secrets) {
  LeakCounts out;
  out.texts = texts.size();
  out.flagged_text.assign(texts.size(), false);
  for (const auto& category : secrets.categories) out.by_category[category] = 0;
  const SecretMatrix found = detect_secrets(texts, secrets);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::set<std::string> categories;
    for (const auto j : found.secrets_of(i)) categories.insert(secrets.categories[static_cast<std::size_t>(j)]);
    for (const auto& category : categories) ++out.by_category[category];
    out.flagged_text[i] = !categories.empty();
    out.flagged += categories.empty() ? 0 : 1;
  }
  return out;
}

}  // namespace secpe
