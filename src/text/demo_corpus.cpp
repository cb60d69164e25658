#include "text/demo_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
#include "text/demo_banks.hpp"

namespace secpe {

namespace {

using Bank = std::vector<std::string_view>;
namespace db = demo_banks;

Bank split(const char* s) {
  Bank out;
  std::string_view v(s);
  while (!v.empty()) {
    const auto p = v.find('|');
    out.push_back(v.substr(0, p));
    if (p == std::string_view::npos) break;
    v.remove_prefix(p + 1);
  }
  return out;
}

struct Category {
  std::string_view label;
  double weight;
  Bank places, suffixes, items, good, bad, staff, aspects, pos, mid, neg;
};

enum Tone { kPos = 0, kMid = 1, kNeg = 2 };
enum SecretKind { kName = 0, kEmail = 1, kPhone = 2, kRare = 3 };

struct Banks {
  std::vector<Category> categories;
  Bank staff_names, friends, times, cities, name_adj, name_noun, pos_adj, neg_adj, very;
  Bank asides, food_mods;
  Bank open[3], service[3], aspect[3], close[3];
  Bank secret_first, surname_head, surname_mid, surname_tail, rare_head, rare_mid, rare_tail, area_codes, domains;
  Bank secret_sentences[4][3];  // kind x tone

  Banks() {
    for (const auto& c : db::kCategories)
      categories.push_back({c.label, c.weight, split(c.places), split(c.suffixes), split(c.items), split(c.good),
                            split(c.bad), split(c.staff), split(c.aspects), split(c.pos), split(c.mid), split(c.neg)});
    staff_names = split(db::kStaffNames);
    friends = split(db::kFriends);
    times = split(db::kTimes);
    cities = split(db::kCities);
    name_adj = split(db::kNameAdj);
    name_noun = split(db::kNameNoun);
    pos_adj = split(db::kPosAdj);
    neg_adj = split(db::kNegAdj);
    very = split(db::kIntensifiers);
    asides = split(db::kAsides);
    food_mods = split(db::kFoodModifiers);
    open[kPos] = split(db::kOpenPos), open[kMid] = split(db::kOpenMid), open[kNeg] = split(db::kOpenNeg);
    service[kPos] = split(db::kServicePos), service[kMid] = split(db::kServiceMid), service[kNeg] = split(db::kServiceNeg);
    aspect[kPos] = split(db::kAspectPos), aspect[kMid] = split(db::kAspectMid), aspect[kNeg] = split(db::kAspectNeg);
    close[kPos] = split(db::kClosePos), close[kMid] = split(db::kCloseMid), close[kNeg] = split(db::kCloseNeg);
    secret_first = split(db::kSecretFirst);
    surname_head = split(db::kSurnameHead);
    surname_mid = split(db::kSurnameMid);
    surname_tail = split(db::kSurnameTail);
    rare_head = split(db::kRareHead);
    rare_mid = split(db::kRareMid);
    rare_tail = split(db::kRareTail);
    area_codes = split(db::kAreaCodes);
    domains = split(db::kEmailDomains);
    secret_sentences[kName][kPos] = split(db::kSecretNamePos);
    secret_sentences[kName][kMid] = split(db::kSecretNameMid);
    secret_sentences[kName][kNeg] = split(db::kSecretNameNeg);
    secret_sentences[kEmail][kPos] = secret_sentences[kEmail][kMid] = split(db::kSecretEmailPos);
    secret_sentences[kEmail][kNeg] = split(db::kSecretEmailNeg);
    secret_sentences[kPhone][kPos] = secret_sentences[kPhone][kMid] = split(db::kSecretPhonePos);
    secret_sentences[kPhone][kNeg] = split(db::kSecretPhoneNeg);
    secret_sentences[kRare][kPos] = secret_sentences[kRare][kMid] = split(db::kSecretRarePos);
    secret_sentences[kRare][kNeg] = split(db::kSecretRareNeg);
  }
};

const Banks& banks() {
  static const Banks b;
  return b;
}

constexpr const char* kStars[] = {"1.0", "2.0", "3.0", "4.0", "5.0"};
constexpr double kStarWeights[] = {0.150, 0.087, 0.103, 0.222, 0.438};  // Yelp dev
constexpr std::size_t kRecordsPerPool = 200;         // records that share one pool of planted secrets
constexpr double kMeanUsesPerSecret = 6.0;  // target recurrences of a planted secret

std::string_view pick(const Bank& b, CounterRng& rng) { return b[rng.below(b.size())]; }

// Zipf-like choice: early entries are common, late ones rare (a long-tailed vocabulary).
std::string_view pick_skewed(const Bank& b, CounterRng& rng) {
  const auto i = static_cast<std::size_t>(static_cast<double>(b.size()) * std::pow(rng.uniform(), 2.2));
  return b[std::min(i, b.size() - 1)];
}

std::size_t pick_weighted(const double* w, std::size_t n, CounterRng& rng) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += w[i];
  double u = rng.uniform() * total;
  for (std::size_t i = 0; i < n; ++i) {
    if (u < w[i]) return i;
    u -= w[i];
  }
  return n - 1;
}

void capitalize(std::string& s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

struct PlantedSecret {
  SecretKind kind;
  std::string text;  // as written in reviews
};

std::vector<PlantedSecret> secret_pool(std::uint64_t seed, std::uint64_t block, double rate) {
  const Banks& b = banks();
  CounterRng rng(seed, Stream::kCorpus, block, 1);
  const auto size = static_cast<std::size_t>(
      std::max(1.0, std::round(static_cast<double>(kRecordsPerPool) * rate / kMeanUsesPerSecret)));
  std::vector<PlantedSecret> pool;
  constexpr double kKindWeights[] = {0.35, 0.2, 0.2, 0.25};
  for (std::size_t k = 0; k < size; ++k) {
    const auto kind = static_cast<SecretKind>(pick_weighted(kKindWeights, 4, rng));
    const std::string first(pick(b.secret_first, rng));
    const std::string surname = std::string(pick(b.surname_head, rng)) + std::string(pick(b.surname_mid, rng)) +
                                std::string(pick(b.surname_tail, rng));
    std::string text;
    switch (kind) {
      case kName: text = first + " " + surname; break;
      case kEmail: {
        const auto style = rng.below(3);
        const std::string user = style == 0   ? first + "." + surname
                                 : style == 1 ? first.substr(0, 1) + surname
                                              : first + "_" + surname.substr(0, 1) + std::to_string(10 + rng.below(90));
        text = lowercase(user) + "@" + std::string(pick(b.domains, rng));
        break;
      }
      case kPhone: {
        const std::string area(pick(b.area_codes, rng));
        const std::string line = "555-01" + std::to_string(rng.below(10)) + std::to_string(rng.below(10));
        text = rng.below(3) == 0 ? "(" + area + ") " + line : area + "-" + line;
        break;
      }
      case kRare:
        text = std::string(pick(b.rare_head, rng)) + std::string(pick(b.rare_mid, rng)) + std::string(pick(b.rare_tail, rng));
        break;
    }
    pool.push_back({kind, std::move(text)});
  }
  return pool;
}

// Per-review choices that stay fixed across its sentences.
struct Review {
  const Category* cat;
  std::string biz, place, staff, name, city, friend_, time, item, item2;
};

std::string fill(std::string_view tmpl, const Review& r, CounterRng& rng, std::string_view secret = {}) {
  const Banks& b = banks();
  std::string out;
  out.reserve(tmpl.size() + 32);
  std::size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] != '{') {
      out.push_back(tmpl[i++]);
      continue;
    }
    const auto close = tmpl.find('}', i);
    const std::string_view slot = tmpl.substr(i + 1, close - i - 1);
    i = close + 1;
    if (slot == "biz") out += r.biz;
    else if (slot == "place") out += r.place;
    else if (slot == "staff") out += r.staff;
    else if (slot == "name") out += r.name;
    else if (slot == "city") out += r.city;
    else if (slot == "friend") out += r.friend_;
    else if (slot == "time") out += r.time;
    else if (slot == "item") out += r.item;
    else if (slot == "item2") out += r.item2;
    else if (slot == "good") out += pick_skewed(r.cat->good, rng);
    else if (slot == "bad") out += pick_skewed(r.cat->bad, rng);
    else if (slot == "aspect") out += pick(r.cat->aspects, rng);
    else if (slot == "adj+") out += pick_skewed(b.pos_adj, rng);
    else if (slot == "adj-") out += pick_skewed(b.neg_adj, rng);
    else if (slot == "very") out += pick(b.very, rng);
    else if (slot == "secret") out += secret;
  }
  capitalize(out);
  return out;
}

std::size_t word_count(const std::string& s) {
  std::size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

Tone body_tone(int stars, CounterRng& rng) {
  static constexpr double kTone[5][3] = {
      {0.0, 0.05, 0.95}, {0.05, 0.35, 0.6}, {0.3, 0.45, 0.25}, {0.7, 0.3, 0.0}, {0.95, 0.05, 0.0}};
  return static_cast<Tone>(pick_weighted(kTone[stars - 1], 3, rng));
}

// With `plain_name` the business is named "the <noun> <suffix>": the other styles can read as a
// person ("Misty Stone") to `--secrets pii`.
Review make_review(const Category& cat, bool plain_name, CounterRng& rng) {
  const Banks& b = banks();
  Review r;
  r.cat = &cat;
  r.place = std::string(pick_skewed(cat.places, rng));
  auto name_style = rng.below(3);
  if (plain_name) name_style = 1;
  r.biz = name_style == 0   ? std::string(pick(b.name_adj, rng)) + " " + std::string(pick(b.name_noun, rng))
          : name_style == 1 ? "the " + std::string(pick(b.name_noun, rng)) + " " + std::string(pick(cat.suffixes, rng))
                            : std::string(pick(b.name_adj, rng)) + " " + std::string(pick(b.name_noun, rng)) + " " +
                                  std::string(pick(cat.suffixes, rng));
  r.staff = std::string(pick_skewed(cat.staff, rng));
  r.name = std::string(pick(b.staff_names, rng));
  r.city = std::string(pick_skewed(b.cities, rng));
  r.friend_ = std::string(pick(b.friends, rng));
  r.time = std::string(pick(b.times, rng));
  r.item = std::string(pick_skewed(cat.items, rng));
  if (cat.label == "Restaurants" && rng.uniform() < 0.3) r.item = std::string(pick(b.food_mods, rng)) + " " + r.item;
  do r.item2 = std::string(pick_skewed(cat.items, rng));
  while (r.item2 == r.item && cat.items.size() > 1);
  return r;
}

// The opener and one to four body sentences into `sentences`; returns their word count. With
// `no_staff_name` no sentence names a staff member (`--secrets pii` takes the name for a PERSON).
std::size_t write_body(const Review& r, int stars, Tone overall, bool no_staff_name, CounterRng& rng,
                       std::vector<std::string>& sentences) {
  const Banks& b = banks();
  const Category& cat = *r.cat;
  const Tone open_tone = (stars == 4 && rng.uniform() < 0.2) || (stars == 2 && rng.uniform() < 0.3) ? kMid : overall;
  sentences.clear();
  sentences.push_back(fill(pick(b.open[open_tone], rng), r, rng));
  const auto target_words = static_cast<std::size_t>(30 + 85 * std::pow(rng.uniform(), 1.7));
  std::size_t words = word_count(sentences[0]);
  std::vector<std::string_view> used;
  const int max_body = 1 + static_cast<int>(rng.below(4));
  for (int k = 0; k < 4 && (k < max_body || words < 30); ++k) {
    if (k > 0 && words >= target_words) break;
    const Tone tone = body_tone(stars, rng);
    const double u = rng.uniform();
    const Bank& bank = u < 0.45  ? (tone == kPos ? cat.pos : tone == kMid ? cat.mid : cat.neg)
                       : u < 0.7 ? b.service[tone]
                       : u < 0.88 ? b.aspect[tone]
                                  : b.asides;
    std::string_view tmpl = pick(bank, rng);
    if (std::find(used.begin(), used.end(), tmpl) != used.end()) tmpl = pick(bank, rng);
    while (no_staff_name && tmpl.find("{name}") != std::string_view::npos) tmpl = pick(bank, rng);
    used.push_back(tmpl);
    sentences.push_back(fill(tmpl, r, rng));
    words += word_count(sentences.back());
  }
  return words;
}

// Every planted secret once, in order of first use, and its index.
struct PlantedList {
  std::vector<std::string> secrets;
  std::unordered_map<std::string, std::int32_t> ids;

  std::int32_t id(std::string secret) {
    auto [it, inserted] = ids.emplace(secret, static_cast<std::int32_t>(secrets.size()));
    if (inserted) secrets.push_back(std::move(secret));
    return it->second;
  }
};

// Inserts one to three secrets of `pool` into the review's sentences (after the opener); returns
// their sorted indices in `planted`.
std::vector<std::int32_t> plant_secrets(const std::vector<PlantedSecret>& pool, const Review& r, Tone overall,
                                        CounterRng& rng, std::vector<std::string>& sentences, PlantedList& planted) {
  const Banks& b = banks();
  const double u = rng.uniform();
  const std::size_t want = std::min<std::size_t>(pool.size(), u < 0.75 ? 1 : u < 0.95 ? 2 : 3);
  std::vector<std::size_t> chosen;
  while (chosen.size() < want) {
    const std::size_t c = rng.below(pool.size());
    if (std::find(chosen.begin(), chosen.end(), c) == chosen.end()) chosen.push_back(c);
  }
  std::vector<std::int32_t> ids;
  for (std::size_t c : chosen) {
    const PlantedSecret& s = pool[c];
    const Bank& bank = b.secret_sentences[s.kind][overall];
    const std::size_t at = 1 + rng.below(sentences.size());
    sentences.insert(sentences.begin() + static_cast<std::ptrdiff_t>(at), fill(pick(bank, rng), r, rng, s.text));
    ids.push_back(planted.id(lowercase(s.text)));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Whether a label's next review may hold planted secrets (the caller drew that it would), counting
// it: a label's first `min_public` reviews never do, nor one that would put more than
// `max_private_share` of the label's reviews so far private. Decided in record order, so record i
// depends on the records before it only.
struct LabelTally {
  std::size_t records = 0, planted = 0;

  bool admit(bool drawn, const DemoCorpusOptions& o) {
    const std::size_t j = records++;
    const bool ok = drawn && j >= o.min_public && double(planted + 1) <= o.max_private_share * double(j + 1);
    planted += ok ? 1 : 0;
    return ok;
  }
};

}  // namespace

std::vector<LabelShare> yelp_label_shares() {
  const Banks& b = banks();
  double total = 0.0;
  for (const auto& c : b.categories) total += c.weight;
  std::vector<LabelShare> shares;
  for (const auto& c : b.categories)
    for (std::size_t s = 0; s < 5; ++s) shares.push_back({{std::string(c.label), kStars[s]}, c.weight / total * kStarWeights[s]});
  return shares;
}

DemoCorpus make_demo_corpus(const DemoCorpusOptions& options) {
  if (!(options.secret_rate >= 0.0 && options.secret_rate <= 1.0))
    throw InputError("demo corpus: secret_rate must be in [0, 1]");
  if (!(options.max_private_share >= 0.0 && options.max_private_share <= 1.0))
    throw InputError("demo corpus: max_private_share must be in [0, 1]");
  const Banks& b = banks();
  DemoCorpus out;
  out.corpus.label_columns = {"label1", "label2"};
  out.corpus.label_prefixes = {"Business Category: ", "Review Stars: "};
  out.corpus.texts.reserve(options.records);
  out.corpus.labels.reserve(options.records);
  out.secrets_of.reserve(options.records);
  std::vector<double> cat_weights;
  for (const auto& c : b.categories) cat_weights.push_back(c.weight);
  std::vector<LabelTally> tally(b.categories.size() * 5);
  PlantedList planted;
  std::vector<PlantedSecret> pool;
  std::size_t pool_block = static_cast<std::size_t>(-1);
  std::vector<std::string> sentences;

  Progress progress("corpus", options.records);
  for (std::size_t i = 0; i < options.records; ++i) {
    if (i % 8192 == 0) progress.step(i);
    CounterRng rng(options.seed, Stream::kCorpus, i, 0);
    const bool drawn = rng.uniform() < options.secret_rate;
    const std::size_t c = pick_weighted(cat_weights.data(), cat_weights.size(), rng);
    const Category& cat = b.categories[c];
    const int stars = 1 + static_cast<int>(pick_weighted(kStarWeights, 5, rng));
    LabelTally& label = tally[c * 5 + static_cast<std::size_t>(stars - 1)];
    const bool reserved = label.records < options.min_public;  // public under --secrets pii too
    const bool has_secret = label.admit(drawn, options);

    const Review r = make_review(cat, reserved, rng);
    const Tone overall = stars >= 4 ? kPos : stars == 3 ? kMid : kNeg;
    const std::size_t words = write_body(r, stars, overall, reserved, rng, sentences);
    std::vector<std::int32_t> ids;
    if (has_secret) {
      const std::size_t block = i / kRecordsPerPool;
      if (block != pool_block) {
        pool = secret_pool(options.seed, block, options.secret_rate);
        pool_block = block;
      }
      ids = plant_secrets(pool, r, overall, rng, sentences, planted);
    }
    if (sentences.size() < 6 && (words < 40 || rng.uniform() < 0.7))
      sentences.push_back(fill(pick(b.close[overall], rng), r, rng));

    std::string text;
    for (const auto& s : sentences) {
      if (!text.empty()) text.push_back(' ');
      text += s;
    }
    out.corpus.texts.push_back(std::move(text));
    out.corpus.labels.push_back({std::string(cat.label), kStars[stars - 1]});
    out.secrets_of.push_back(std::move(ids));
  }
  progress.finish();
  out.planted = std::move(planted.secrets);
  return out;
}

}  // namespace secpe
