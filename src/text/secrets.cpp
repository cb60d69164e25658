#include "text/secrets.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "text/scan.hpp"
#include "text/tokenizer.hpp"

namespace secpe {

using namespace text_detail;

namespace {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return static_cast<std::size_t>(fnv1a(s)); }
};

// Letters in a word: code points that are not ASCII digits or in-word punctuation.
int letter_count(std::string_view w) {
  int n = 0;
  for (char c : w) {
    const auto b = static_cast<unsigned char>(c);
    if ((b & 0xC0) == 0x80) continue;  // continuation byte
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80) ++n;
  }
  return n;
}

std::string collapse_lower(std::string_view s) {
  // Lower-cases ASCII, trims and collapses runs of ASCII whitespace to one space.
  std::string out;
  bool pending_space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(lower_ascii(c));
  }
  return out;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string key;
  for (const auto& w : words) {
    if (!key.empty()) key.push_back(' ');
    key += w;
  }
  return key;
}

// An open-addressing table from lower-cased word to the secrets whose word sequence starts with it.
class FirstWordIndex {
 public:
  struct Entry {
    std::uint64_t hash = 0;
    std::int32_t word = -1;  // index into words_, -1 = empty slot
  };

  void add(const std::string& first_word, std::int32_t secret) {
    const std::uint64_t h = fnv1a(first_word);
    auto it = word_ids_.find(first_word);
    std::int32_t id;
    if (it == word_ids_.end()) {
      id = static_cast<std::int32_t>(words_.size());
      word_ids_.emplace(first_word, id);
      words_.push_back(first_word);
      hashes_.push_back(h);
      secrets_of_.emplace_back();
    } else {
      id = it->second;
    }
    secrets_of_[id].push_back(secret);
  }

  void build() {
    std::size_t cap = 16;
    while (cap < words_.size() * 4) cap <<= 1;
    slots_.assign(cap, Entry{});
    mask_ = cap - 1;
    for (std::size_t i = 0; i < words_.size(); ++i) {
      std::size_t p = mix64(hashes_[i]) & mask_;
      while (slots_[p].word >= 0) p = (p + 1) & mask_;
      slots_[p] = {hashes_[i], static_cast<std::int32_t>(i)};
    }
  }

  // The secrets starting with `w` (lower-cased, hash h), or nullptr.
  const std::vector<std::int32_t>* find(std::string_view w, std::uint64_t h) const {
    std::size_t p = mix64(h) & mask_;
    for (;;) {
      const Entry& e = slots_[p];
      if (e.word < 0) return nullptr;
      if (e.hash == h && words_[e.word] == w) return &secrets_of_[e.word];
      p = (p + 1) & mask_;
    }
  }

 private:
  std::vector<std::string> words_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::vector<std::int32_t>> secrets_of_;
  std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> word_ids_;
  std::vector<Entry> slots_;
  std::size_t mask_ = 0;
};

// The `take` words of `vocab` (sorted by descending frequency) centred on `quantile`, then, when
// `max_private` limits the records they may make private, the next ones outward in order of
// distance from that centre, skipping any word that would pass the limit (see secrets.hpp).
std::vector<std::string> words_near_quantile(const std::vector<std::pair<std::uint64_t, const std::string*>>& vocab,
                                             const std::vector<std::string>& texts, const RandomWordOptions& o,
                                             const std::vector<std::int32_t>& label_of) {
  const std::size_t n = vocab.size();
  const std::size_t take = std::min<std::size_t>(static_cast<std::size_t>(o.count), n);
  const auto centre = static_cast<std::size_t>(std::llround(o.quantile * static_cast<double>(n)));
  std::size_t begin = centre >= take / 2 ? centre - take / 2 : 0;
  begin = std::min(begin, n - take);
  if (o.max_private_share >= 1.0) {
    std::vector<std::string> out;
    for (std::size_t i = begin; i < begin + take; ++i) out.push_back(*vocab[i].second);
    return out;
  }
  // Candidates in order of distance from the window's middle (ties: the more frequent word): the
  // first `take` of them are the window itself.
  const double middle = static_cast<double>(begin) + (static_cast<double>(take) - 1.0) / 2.0;
  const double reach = std::max(10.0 * static_cast<double>(take), static_cast<double>(take));
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (std::abs(static_cast<double>(i) - middle) <= reach) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(static_cast<double>(a) - middle) < std::abs(static_cast<double>(b) - middle);
  });
  SecretSet candidates;
  for (const std::size_t i : order) candidates.secrets.push_back(*vocab[i].second);
  // Which records each candidate makes private, with detect_secrets' own matching.
  const SecretMatrix holders = detect_secrets(texts, candidates);
  std::vector<std::vector<std::uint32_t>> records_of(order.size());
  for (std::size_t r = 0; r < holders.rows(); ++r)
    for (const auto j : holders.secrets_of(r)) records_of[static_cast<std::size_t>(j)].push_back(static_cast<std::uint32_t>(r));
  const auto limit = static_cast<std::size_t>(o.max_private_share * static_cast<double>(texts.size()));
  std::vector<bool> made_private(texts.size(), false);
  std::size_t private_records = 0;
  std::vector<std::int64_t> public_left;  // per label, when labels are given
  for (const auto l : label_of) {
    if (static_cast<std::size_t>(l) >= public_left.size()) public_left.resize(static_cast<std::size_t>(l) + 1, 0);
    ++public_left[static_cast<std::size_t>(l)];
  }
  std::vector<std::int64_t> taken(public_left.size(), 0);
  std::vector<std::size_t> chosen;  // vocabulary positions
  for (std::size_t k = 0; k < order.size() && chosen.size() < take; ++k) {
    std::size_t added = 0;
    std::fill(taken.begin(), taken.end(), 0);
    bool empties_a_label = false;
    for (const auto r : records_of[k]) {
      if (made_private[r]) continue;
      ++added;
      if (!label_of.empty()) {
        const auto l = static_cast<std::size_t>(label_of[r]);
        empties_a_label = empties_a_label || ++taken[l] == public_left[l];
      }
    }
    if (private_records + added > limit || empties_a_label) continue;
    for (const auto r : records_of[k]) {
      if (!made_private[r] && !label_of.empty()) --public_left[static_cast<std::size_t>(label_of[r])];
      made_private[r] = true;
    }
    private_records += added;
    chosen.push_back(order[k]);
  }
  std::sort(chosen.begin(), chosen.end());  // frequency order, as without a limit
  std::vector<std::string> out;
  for (const std::size_t i : chosen) out.push_back(*vocab[i].second);
  return out;
}

}  // namespace

SecretSet choose_random_word_secrets(const std::vector<std::string>& texts, const RandomWordOptions& o,
                                     const std::vector<std::string>& published, const std::vector<std::int32_t>& label_of) {
  if (o.count <= 0) throw InputError("random-word secrets: the number of secrets must be positive");
  if (!(o.quantile >= 0.0 && o.quantile <= 1.0)) throw InputError("random-word secrets: the quantile must be in [0, 1]");
  if (!(o.max_private_share >= 0.0 && o.max_private_share <= 1.0)) throw InputError("random-word secrets: the private share must be in [0, 1]");
  std::unordered_map<std::string, std::uint64_t, StringHash, std::equal_to<>> freq;
  std::string buf;
  for (const auto& text : texts) {
    scan_tokens(text, [&](std::string_view tok, bool is_word) {
      if (!is_word) return;
      buf.clear();
      append_lower(buf, tok);
      auto it = freq.find(std::string_view(buf));
      if (it != freq.end()) ++it->second;
      else freq.emplace(buf, 1);
    });
  }
  for (const auto& text : published) {
    for (const auto& w : words_lower(text)) freq.erase(w);
  }
  std::vector<std::pair<std::uint64_t, const std::string*>> vocab;
  vocab.reserve(freq.size());
  for (const auto& [w, c] : freq) {
    if (is_all_digits(w) || letter_count(w) < o.min_length) continue;
    vocab.emplace_back(c, &w);
  }
  if (vocab.empty()) throw InputError("random-word secrets: the corpus has no words to choose from");
  std::sort(vocab.begin(), vocab.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : *a.second < *b.second;
  });
  SecretSet set;
  set.mode = "random-word";
  if (!label_of.empty() && label_of.size() != texts.size()) throw std::invalid_argument("choose_random_word_secrets: one label per text");
  set.secrets = words_near_quantile(vocab, texts, o, label_of);
  if (set.secrets.empty()) {
    throw InputError("random-word secrets: every word near the quantile would make more than the allowed share of the "
                     "records, or every record of a label, private");
  }
  set.categories.assign(set.secrets.size(), kRandomWordCategory);
  return set;
}

SecretSet read_secret_list(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(file + ": cannot read the secrets list");
  SecretSet set;
  set.mode = "list:" + path.filename().string();  // the name only: the mode goes into the dataset's provenance, and run.json
  std::unordered_map<std::string, long long> seen;  // word sequence -> line
  std::string line;
  long long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // byte-order mark
    if (!valid_utf8(line)) throw input_error_at(file, lineno, "invalid UTF-8");
    if (line.find('\0') != std::string::npos) throw input_error_at(file, lineno, "NUL byte in the secret");
    const std::string secret = collapse_lower(line);
    if (secret.empty() || secret.front() == '#') continue;
    const auto words = words_lower(secret);
    if (words.empty()) throw input_error_at(file, lineno, "the secret has no word characters");
    const std::string key = join_words(words);
    if (auto it = seen.find(key); it != seen.end())
      throw input_error_at(file, lineno, "duplicate secret (same words as line " + std::to_string(it->second) + ")");
    seen.emplace(key, lineno);
    set.secrets.push_back(secret);
  }
  if (in.bad()) throw InputError(file + ": cannot read the secrets list");
  if (set.secrets.empty()) throw InputError(file + ": the secrets list holds no secrets");
  set.categories.assign(set.secrets.size(), kListCategory);
  return set;
}

SecretSet choose_pii_secrets(const std::vector<std::string>& texts, PiiCategories wanted, SecretMatrix* found) {
  SecretSet set;
  set.mode = "pii";
  std::unordered_map<std::string, std::int32_t> ids;  // value's words -> secret id
  std::vector<PiiMatch> matches;
  std::vector<std::int32_t> row;
  SecretMatrix detected;
  detected.indptr = {0};
  for (const auto& text : texts) {
    find_pii(text, wanted, matches);
    row.clear();
    for (const auto& m : matches) {
      std::string value = collapse_lower(std::string_view(text).substr(m.begin, m.end - m.begin));
      std::string key = join_words(words_lower(value));
      if (key.empty()) continue;
      const auto [it, added] = ids.emplace(std::move(key), static_cast<std::int32_t>(set.secrets.size()));
      if (added) {
        set.secrets.push_back(std::move(value));
        set.categories.emplace_back(pii_category_name(m.category));
      }
      row.push_back(it->second);
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    detected.indices.insert(detected.indices.end(), row.begin(), row.end());
    detected.indptr.push_back(static_cast<std::int64_t>(detected.indices.size()));
  }
  detected.num_secrets = static_cast<std::int32_t>(set.secrets.size());
  if (found) *found = std::move(detected);
  return set;
}

SecretSet merge_secret_sets(const std::vector<SecretSet>& sets) {
  SecretSet out;
  std::unordered_set<std::string> seen;  // word sequences
  for (const auto& set : sets) {
    out.mode += (out.mode.empty() ? "" : "+") + set.mode;
    for (std::size_t j = 0; j < set.secrets.size(); ++j) {
      if (!seen.insert(join_words(words_lower(set.secrets[j]))).second) continue;
      out.secrets.push_back(set.secrets[j]);
      out.categories.push_back(set.categories[j]);
    }
  }
  return out;
}

SecretMatrix secret_union(const SecretMatrix& a, const SecretMatrix& b) {
  if (a.rows() != b.rows()) throw std::invalid_argument("secret_union: the matrices differ in rows");
  SecretMatrix out;
  out.num_secrets = std::max(a.num_secrets, b.num_secrets);
  out.indptr = {0};
  std::vector<std::int32_t> row;
  for (std::size_t i = 0; i < a.rows(); ++i) {
    const auto x = a.secrets_of(i), y = b.secrets_of(i);
    row.clear();
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(row));
    out.indices.insert(out.indices.end(), row.begin(), row.end());
    out.indptr.push_back(static_cast<std::int64_t>(out.indices.size()));
  }
  return out;
}

SecretMatrix detect_secrets(const std::vector<std::string>& texts, const SecretSet& secrets) {
  const std::size_t m = secrets.secrets.size();
  // Each secret as a sequence of lower-cased words; it matches a run of consecutive words.
  std::vector<std::vector<std::string>> seq(m);
  FirstWordIndex index;
  for (std::size_t j = 0; j < m; ++j) {
    seq[j] = words_lower(secrets.secrets[j]);
    if (!seq[j].empty()) index.add(seq[j][0], static_cast<std::int32_t>(j));
  }
  index.build();

  SecretMatrix out;
  out.num_secrets = static_cast<std::int32_t>(m);
  out.indptr.reserve(texts.size() + 1);
  out.indptr.push_back(0);
  std::string arena;                                   // lower-cased words of one text
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;  // (offset, length) in arena
  std::vector<std::int32_t> hits;
  auto word_at = [&](std::size_t k) { return std::string_view(arena).substr(spans[k].first, spans[k].second); };

  for (const auto& text : texts) {
    arena.clear();
    spans.clear();
    hits.clear();
    scan_tokens(text, [&](std::string_view tok, bool is_word) {
      if (!is_word) return;
      const auto off = static_cast<std::uint32_t>(arena.size());
      append_lower(arena, tok);
      spans.emplace_back(off, static_cast<std::uint32_t>(tok.size()));
    });
    for (std::size_t k = 0; k < spans.size(); ++k) {
      std::string_view w = word_at(k);
      const std::vector<std::int32_t>* cands = index.find(w, fnv1a(w));
      // A possessive ("Quintero's") also holds the word itself.
      std::string_view stem;
      if (w.size() > 2 && w.ends_with("'s")) stem = w.substr(0, w.size() - 2);
      else if (w.size() > 4 && w.ends_with("\xE2\x80\x99s")) stem = w.substr(0, w.size() - 4);
      const std::vector<std::int32_t>* stem_cands = stem.empty() ? nullptr : index.find(stem, fnv1a(stem));
      for (const auto* list : {cands, stem_cands}) {
        if (!list) continue;
        for (std::int32_t j : *list) {
          const auto& s = seq[j];
          if (s.size() == 1) {
            hits.push_back(j);
            continue;
          }
          if (list == stem_cands || k + s.size() > spans.size()) continue;  // a possessive ends a phrase
          bool ok = true;
          for (std::size_t q = 1; q < s.size() && ok; ++q) {
            std::string_view v = word_at(k + q);
            if (v == s[q]) continue;
            // The last word of a phrase may be possessive too.
            ok = q + 1 == s.size() && v.size() == s[q].size() + 2 && v.starts_with(s[q]) && v.ends_with("'s");
          }
          if (ok) hits.push_back(j);
        }
      }
    }
    std::sort(hits.begin(), hits.end());
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    out.indices.insert(out.indices.end(), hits.begin(), hits.end());
    out.indptr.push_back(static_cast<std::int64_t>(out.indices.size()));
  }
  return out;
}

}  // namespace secpe
