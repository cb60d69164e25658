#pragma once
// The built-in demo corpus: deterministic Yelp-like reviews for 10 business categories x 5 star
// ratings, with Yelp's skew (restaurants dominate, 4-5 stars most common), and planted secrets
// (rare words, person names, emails, phone numbers) in a fraction of the reviews. Every label keeps
// public reviews at any size (a label without one cannot be imported by default): planted secrets
// spare a label's first reviews and never put more than a set share of its reviews private.
#include <cstdint>
#include <string>
#include <vector>

#include "io/corpus.hpp"

namespace secpe {

struct DemoCorpusOptions {
  std::size_t records = 4000;
  std::uint64_t seed = 7;
  double secret_rate = 0.25;  // fraction of reviews drawn to get one or more planted secrets
  // Per label, in record order: its first `min_public` reviews get no planted secret and name no
  // staff member (so `--secrets pii,list` keeps them public too), and a drawn review gets none if
  // that would put more than `max_private_share` of the label's reviews so far private.
  std::size_t min_public = 3;
  double max_private_share = 0.5;
};

struct DemoCorpus {
  Corpus corpus;                         // label columns label1, label2 with Aug-PE prefixes
  std::vector<std::string> planted;      // every planted secret, as a secrets list
  std::vector<std::vector<std::int32_t>> secrets_of;  // per record, sorted indices into `planted`
};

DemoCorpus make_demo_corpus(const DemoCorpusOptions& options);

// The demo's label distribution (category share x star share, both from Yelp's dev split):
// 50 labels as {category, stars} with their probabilities, in category then star order.
// Shared with `secpe synth-embeddings --labels yelp` so both skew alike.
struct LabelShare {
  std::vector<std::string> values;
  double probability;
};
std::vector<LabelShare> yelp_label_shares();

}  // namespace secpe
