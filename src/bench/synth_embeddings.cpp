#include "bench/synth_embeddings.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
#include "text/demo_corpus.hpp"

namespace secpe {
namespace {

// Coordinates of the random streams: label centres, component centres and records never collide.
constexpr std::uint64_t kLabelCentre = 1, kComponentCentre = 2, kRecord = 3, kDemoPool = 4;

void random_unit(CounterRng& rng, float* out, int d) {
  double norm = 0.0;
  for (int j = 0; j < d; ++j) {
    out[j] = static_cast<float>(rng.normal());
    norm += double(out[j]) * out[j];
  }
  const double inv = 1.0 / std::sqrt(norm);
  for (int j = 0; j < d; ++j) out[j] = static_cast<float>(out[j] * inv);
}

// holders = "demo": every block's pool of secret ids (see SynthEmbeddingOptions::holders).
constexpr std::size_t kDemoBlock = 200;
constexpr double kDemoUsesPerEntry = 6.0;

std::vector<std::vector<std::int32_t>> demo_pools(std::size_t records, int secrets, double private_fraction, std::uint64_t seed) {
  const std::size_t blocks = (records + kDemoBlock - 1) / kDemoBlock;
  const auto size = static_cast<std::size_t>(std::max(
      {1.0, std::round(double(kDemoBlock) * private_fraction / kDemoUsesPerEntry), std::ceil(double(secrets) / double(blocks))}));
  const double repeat = 1.0 - std::min(1.0, double(secrets) / double(blocks * size));
  std::vector<std::vector<std::int32_t>> pools(blocks);
  std::vector<std::int32_t> entries;  // every entry so far: a uniform pick is one in proportion to its entries
  std::int32_t next = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    CounterRng rng(seed, Stream::kCorpus, kDemoPool, b);
    for (std::size_t e = 0; e < size; ++e) {
      const bool again = !entries.empty() && (next == secrets || rng.uniform() < repeat);
      const std::int32_t id = again ? entries[rng.below(entries.size())] : next++;
      pools[b].push_back(id);
      entries.push_back(id);
    }
  }
  return pools;
}

std::vector<LabelShare> label_shares(const std::string& spec) {
  if (spec == "yelp") {
    auto shares = yelp_label_shares();
    std::sort(shares.begin(), shares.end(), [](auto& a, auto& b) { return a.values < b.values; });  // import's id order
    return shares;
  }
  int n = 0;
  try {
    n = std::stoi(spec);
  } catch (...) {
  }
  if (n < 1 || n > 100000) throw InputError("labels must be 'yelp' or a number of labels in [1, 100000], not '" + spec + "'");
  std::vector<LabelShare> shares;
  for (int l = 0; l < n; ++l) shares.push_back({{"label" + std::to_string(l)}, 1.0 / n});
  std::sort(shares.begin(), shares.end(), [](auto& a, auto& b) { return a.values < b.values; });
  return shares;
}

// Component centres: per label a direction plus a component offset, normalised.
MatrixF component_centres(const SynthEmbeddingOptions& o, std::size_t n_labels) {
  const int d = o.dim;
  const int per_label = o.components + o.private_components;
  MatrixF components(static_cast<Eigen::Index>(n_labels * per_label), d);
  std::vector<float> label_dir(static_cast<std::size_t>(d)), offset(static_cast<std::size_t>(d));
  for (std::size_t l = 0; l < n_labels; ++l) {
    CounterRng lr(o.seed, Stream::kCorpus, kLabelCentre, l);
    random_unit(lr, label_dir.data(), d);
    for (int k = 0; k < per_label; ++k) {
      CounterRng cr(o.seed, Stream::kCorpus, kComponentCentre, l, static_cast<std::uint64_t>(k));
      random_unit(cr, offset.data(), d);
      auto row = components.row(static_cast<Eigen::Index>(l * per_label + k));
      for (int j = 0; j < d; ++j) row[j] = label_dir[j] + 0.7f * offset[j];
      row.normalize();
    }
  }
  return components;
}

// The secrets a private record holds, drawn from its stream: from its block's pool as secpe corpus
// plants them (`pool` given), else by Zipf popularity (`secret_cdf`). Sorted, distinct.
std::vector<std::int32_t> held_secrets(CounterRng& rng, const std::vector<std::int32_t>* pool, const std::vector<double>& secret_cdf) {
  const double u = rng.uniform();
  const int held = pool ? (u < 0.75 ? 1 : u < 0.95 ? 2 : 3) : 1 + (u < 0.2) + (u < 0.05);
  std::vector<std::int32_t> s;
  if (pool) {
    std::vector<std::size_t> chosen;
    while (chosen.size() < std::min<std::size_t>(pool->size(), static_cast<std::size_t>(held))) {
      const std::size_t c = rng.below(pool->size());
      if (std::find(chosen.begin(), chosen.end(), c) == chosen.end()) chosen.push_back(c);
    }
    for (const std::size_t c : chosen) s.push_back((*pool)[c]);
  } else {
    for (int h = 0; h < held; ++h)
      s.push_back(static_cast<std::int32_t>(std::lower_bound(secret_cdf.begin(), secret_cdf.end(), rng.uniform()) - secret_cdf.begin()));
  }
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace

DatasetContents synth_embeddings(const SynthEmbeddingOptions& o) {
  if (o.records < 1) throw InputError("records must be at least 1");
  if (o.dim < 1 || o.dim > 65536) throw InputError("the dimension must be in [1, 65536]");
  if (o.secrets < 1) throw InputError("secrets must be at least 1");
  if (!(o.private_fraction >= 0 && o.private_fraction <= 1)) throw InputError("the private fraction must be in [0, 1]");
  if (o.components < 1) throw InputError("components must be at least 1");
  if (o.private_components < 0) throw InputError("private components must be 0 or more");
  const auto shares = label_shares(o.labels);
  const auto n_labels = shares.size();
  const int d = o.dim;

  DatasetContents c;
  c.labels.columns = o.labels == "yelp" ? std::vector<std::string>{"label1", "label2"} : std::vector<std::string>{"label"};
  c.labels.prefixes = o.labels == "yelp" ? std::vector<std::string>{"Business Category: ", "Review Stars: "}
                                         : std::vector<std::string>{""};
  std::vector<double> cdf;
  double acc = 0.0;
  for (const auto& s : shares) {
    c.labels.values.push_back(s.values);
    cdf.push_back(acc += s.probability);
  }

  const MatrixF components = component_centres(o, n_labels);
  // Zipf(1) popularity of secrets.
  std::vector<double> secret_cdf(static_cast<std::size_t>(o.secrets));
  acc = 0.0;
  for (int j = 0; j < o.secrets; ++j) secret_cdf[j] = acc += 1.0 / (j + 1);
  for (auto& v : secret_cdf) v /= acc;

  const std::size_t n = o.records;
  if (o.holders != "zipf" && o.holders != "demo") throw InputError("holders must be zipf or demo, not '" + o.holders + "'");
  const bool demo = o.holders == "demo";
  const auto pools = demo ? demo_pools(n, o.secrets, o.private_fraction, o.seed) : std::vector<std::vector<std::int32_t>>{};
  c.label_ids.resize(n);
  c.embeddings.resize(static_cast<Eigen::Index>(n), d);
  std::vector<std::vector<std::int32_t>> secrets_of(n);
  const unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  // Yelp scale takes about a minute (50 s on 2 vCPUs): progress on stderr, as every long command
  // shows it, a thread's report every 2^22 normals or so (about 0.1 s) whatever the dimension.
  SharedProgress progress("synth-embeddings: generate", n);
  const std::size_t every = std::clamp<std::size_t>((std::size_t(1) << 22) / static_cast<std::size_t>(d), 1, 4096);
  auto work = [&](int chunk, std::size_t begin, std::size_t end) {
    std::vector<float> noise(static_cast<std::size_t>(d));
    for (std::size_t i = begin; i < end; ++i) {
      CounterRng rng(o.seed, Stream::kCorpus, kRecord, i);
      const auto label = static_cast<std::size_t>(std::upper_bound(cdf.begin(), cdf.end(), rng.uniform() * cdf.back()) - cdf.begin());
      c.label_ids[i] = static_cast<std::int32_t>(std::min(label, n_labels - 1));
      // With private components a record is private or not before its component is drawn (and
      // after it otherwise, so that datasets without them keep their bits).
      const bool apart = o.private_components > 0;
      const bool early_private = apart && rng.uniform() < o.private_fraction;
      const int own = early_private ? o.components + static_cast<int>(rng.below(static_cast<std::uint64_t>(o.private_components)))
                                    : static_cast<int>(rng.below(static_cast<std::uint64_t>(o.components)));
      const auto comp = c.label_ids[i] * (o.components + o.private_components) + own;
      random_unit(rng, noise.data(), d);
      auto row = c.embeddings.row(static_cast<Eigen::Index>(i));
      for (int j = 0; j < d; ++j) row[j] = components(comp, j) + static_cast<float>(o.spread) * noise[j];
      row.normalize();
      if (apart ? early_private : rng.uniform() < o.private_fraction) {
        secrets_of[i] = held_secrets(rng, demo ? &pools[i / kDemoBlock] : nullptr, secret_cdf);
      }
      if ((i - begin) % every == every - 1) progress.add(chunk, every);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, static_cast<int>(t), n * t / threads, n * (t + 1) / threads);
  for (auto& t : pool) t.join();
  progress.finish();

  c.secrets.num_secrets = o.secrets;
  c.secrets.indptr.reserve(n + 1);
  c.secrets.indptr.push_back(0);
  for (const auto& s : secrets_of) {
    c.secrets.indices.insert(c.secrets.indices.end(), s.begin(), s.end());
    c.secrets.indptr.push_back(static_cast<std::int64_t>(c.secrets.indices.size()));
  }
  for (int j = 0; j < o.secrets; ++j) c.secret_names.push_back("secret" + std::to_string(j));
  c.provenance = {{"source", kSynthEmbeddingsSource},
                  {"source_format", "synthetic"},
                  {"embedder", "synthetic-mixture"},
                  {"embedding_dim", std::to_string(d)},
                  {"secret_mode", "synthetic-zipf"},
                  {"secret_count", std::to_string(o.secrets)},
                  {"synth_labels", o.labels},
                  {"synth_seed", std::to_string(o.seed)},
                  {"synth_private_fraction", std::to_string(o.private_fraction)},
                  {"synth_components", std::to_string(o.components)},
                  {"synth_spread", std::to_string(o.spread)},
                  {"secpe_version", build_info().version}};
  if (demo) c.provenance["synth_holders"] = "demo";
  return c;
}

}  // namespace secpe
