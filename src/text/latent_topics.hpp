#pragma once
// Latent topics of a set of texts, learned without any label: spherical k-means on the texts'
// TF-IDF rows over their content words (function words dropped). The pooled generator trains one
// n-gram model per topic (--generator-topics), so that a text, drawn from one topic's model, stays
// on one subject the way an LLM's text does, where the one pooled trigram drifts back to the
// majority's subject at every sentence (docs/studies.md, "What it says").
#include <cstddef>
#include <string>
#include <vector>

namespace secpe {

// The texts of each of `topics` clusters (indices into texts, ascending; every text with a known
// content word in exactly one, a text without one in none). Deterministic: k-means++ seeding from
// a fixed public stream, then kLatentTopicIterations Lloyd steps; a cluster left empty keeps its
// centre. Fewer texts than topics give one cluster per text.
std::vector<std::vector<std::size_t>> latent_topics(const std::vector<std::string>& texts, int topics);

}  // namespace secpe
