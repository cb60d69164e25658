#include "text/tfidf_svd_embedder.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "text/ngrams.hpp"

namespace secpe {
namespace {

using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::size_t kBlockRows = 8192;  // public texts per sparse block

// Eigen splits dense products over OpenMP threads when the library is built with OpenMP (FAISS
// brings it), and the split can change how sums are grouped: one thread keeps the fitted model
// the same whatever the thread count.
class OneEigenThread {
 public:
  OneEigenThread() : saved_(Eigen::nbThreads()) { Eigen::setNbThreads(1); }
  ~OneEigenThread() { Eigen::setNbThreads(saved_); }
  OneEigenThread(const OneEigenThread&) = delete;
  OneEigenThread& operator=(const OneEigenThread&) = delete;

 private:
  int saved_;
};

// The public TF-IDF matrix A in row blocks, and the split of its features (columns) into one
// range per thread with about equal nonzeros, for the A^T products.
struct PublicMatrix {
  std::vector<SparseRows> blocks;
  Eigen::Index rows = 0, features = 0;
  std::vector<std::size_t> feature_begin;  // thread t owns features [feature_begin[t], feature_begin[t + 1])
  double nonzeros_per_row = 0;
};

PublicMatrix public_matrix(std::span<const std::string_view> texts, const TfidfVectorizer& vectorizer, int threads) {
  PublicMatrix a;
  a.rows = static_cast<Eigen::Index>(texts.size());
  a.features = static_cast<Eigen::Index>(vectorizer.num_features());
  const std::size_t blocks = (texts.size() + kBlockRows - 1) / kBlockRows;
  a.blocks.resize(blocks);
  run_chunks(threads, blocks, [&](int, std::size_t begin, std::size_t end) {
    std::vector<std::vector<std::uint64_t>> words;
    for (std::size_t b = begin; b < end; ++b) {
      words.clear();
      for (std::size_t i = b * kBlockRows; i < std::min(texts.size(), (b + 1) * kBlockRows); ++i) words.push_back(word_keys(texts[i]));
      a.blocks[b] = vectorizer.transform(words);
    }
  });
  std::vector<std::size_t> per_feature(vectorizer.num_features(), 0);
  std::size_t total = 0;
  for (const SparseRows& block : a.blocks) {
    for (Eigen::Index k = 0; k < block.nonZeros(); ++k) ++per_feature[static_cast<std::size_t>(block.innerIndexPtr()[k])];
    total += static_cast<std::size_t>(block.nonZeros());
  }
  a.nonzeros_per_row = double(total) / double(std::max<std::size_t>(1, texts.size()));
  const auto parts = static_cast<std::size_t>(threads);
  a.feature_begin.assign(1, 0);
  std::size_t running = 0;
  for (std::size_t f = 0; f < per_feature.size(); ++f) {
    running += per_feature[f];
    while (a.feature_begin.size() < parts && running * parts >= a.feature_begin.size() * total) a.feature_begin.push_back(f + 1);
  }
  a.feature_begin.resize(parts + 1, per_feature.size());
  return a;
}

// The products below sum in an order fixed by the data alone, so the model does not depend on the
// thread count: a row of A X is one thread's sum over the record's terms in index order, and a row
// of A^T Y is added to only by the thread owning its feature, records in order.

// out (block rows x l, row-major) = block X.
void block_times(const PublicMatrix& a, const SparseRows& block, const RowMatrixD& x, double* out, int threads) {
  const auto rows = static_cast<std::size_t>(block.rows()), l = static_cast<std::size_t>(x.cols());
  const int* outer = block.outerIndexPtr();
  const int* inner = block.innerIndexPtr();
  const double* values = block.valuePtr();
  std::fill(out, out + rows * l, 0.0);
  run_chunks(chunk_count(threads, rows, a.nonzeros_per_row * double(l)), rows, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double* row = out + i * l;
      for (int k = outer[i]; k < outer[i + 1]; ++k) {
        const double* xf = x.data() + static_cast<std::size_t>(inner[k]) * l;
        const double v = values[k];
        for (std::size_t c = 0; c < l; ++c) row[c] += v * xf[c];
      }
    }
  });
}

// z += block^T y, y holding the block's rows (row-major, z.cols() wide).
void add_block_transpose_times(const PublicMatrix& a, const SparseRows& block, const double* y, RowMatrixD& z, int threads) {
  const auto rows = static_cast<std::size_t>(block.rows()), l = static_cast<std::size_t>(z.cols());
  const int* outer = block.outerIndexPtr();
  const int* inner = block.innerIndexPtr();
  const double* values = block.valuePtr();
  run_chunks(threads, a.feature_begin.size() - 1, [&](int, std::size_t begin, std::size_t end) {
    const auto first = static_cast<int>(a.feature_begin[begin]), last = static_cast<int>(a.feature_begin[end]);
    for (std::size_t i = 0; i < rows; ++i) {
      const double* row = y + i * l;
      // Terms are sorted within a row: this thread's lie in one run.
      for (const int* k = std::lower_bound(inner + outer[i], inner + outer[i + 1], first); k != inner + outer[i + 1] && *k < last; ++k) {
        double* zf = z.data() + static_cast<std::size_t>(*k) * l;
        const double v = values[k - inner];
        for (std::size_t c = 0; c < l; ++c) zf[c] += v * row[c];
      }
    }
  });
}

// A X: one row per public record.
RowMatrixD times(const PublicMatrix& a, const RowMatrixD& x, int threads) {
  RowMatrixD out(a.rows, x.cols());
  Eigen::Index offset = 0;
  for (const SparseRows& block : a.blocks) {
    block_times(a, block, x, out.data() + offset * x.cols(), threads);
    offset += block.rows();
  }
  return out;
}

// A^T Y: one row per vocabulary term.
RowMatrixD transpose_times(const PublicMatrix& a, const RowMatrixD& y, int threads) {
  RowMatrixD z = RowMatrixD::Zero(a.features, y.cols());
  Eigen::Index offset = 0;
  for (const SparseRows& block : a.blocks) {
    add_block_transpose_times(a, block, y.data() + offset * y.cols(), z, threads);
    offset += block.rows();
  }
  return z;
}

// A^T (A Q) block by block, never holding the records x l product A Q.
RowMatrixD gram_times(const PublicMatrix& a, const RowMatrixD& q, int threads) {
  RowMatrixD z = RowMatrixD::Zero(q.rows(), q.cols());
  RowMatrixD aq;
  for (const SparseRows& block : a.blocks) {
    aq.resize(block.rows(), q.cols());
    block_times(a, block, q, aq.data(), threads);
    add_block_transpose_times(a, block, aq.data(), z, threads);
  }
  return z;
}

// An orthonormal basis of y's columns: the thin Q of a Householder QR.
RowMatrixD orthonormal(const RowMatrixD& y) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(y);
  return qr.householderQ() * Eigen::MatrixXd::Identity(y.rows(), y.cols());
}

}  // namespace

TfidfSvdEmbedder TfidfSvdEmbedder::fit(std::span<const std::string_view> public_texts, const TfidfSvdOptions& options) {
  const int d = options.dim;
  if (d < kTfidfSvdMinDim || d > kTfidfSvdMaxDim) {
    throw InputError("tfidf-svd embedder: the embedding dimension must be in [" + std::to_string(kTfidfSvdMinDim) + ", " +
                     std::to_string(kTfidfSvdMaxDim) + "], not " + std::to_string(d));
  }
  if (options.min_df < 1) throw InputError("tfidf-svd embedder: the minimum document frequency must be at least 1");
  if (options.vocabulary < static_cast<std::size_t>(d)) throw InputError("tfidf-svd embedder: the vocabulary must hold at least as many terms as the embedding dimension");
  if (options.oversampling < 0 || options.power_iterations < 0) throw std::invalid_argument("tfidf-svd embedder: negative oversampling or power iterations");
  const int threads = options.threads > 0 ? options.threads : default_threads();
  const OneEigenThread one_eigen_thread;

  TermCounts counts(kTfidfSvdNgrams);
  for (const std::string_view text : public_texts) counts.add(word_keys(text));
  TfidfVectorizer vectorizer(counts, {.max_n = kTfidfSvdNgrams, .min_df = options.min_df, .max_features = options.vocabulary});
  const std::size_t v = vectorizer.num_features();
  if (v < static_cast<std::size_t>(d)) {
    throw InputError("tfidf-svd embedder: the " + std::to_string(public_texts.size()) + " public records hold " + std::to_string(v) +
                     " terms that occur in at least " + std::to_string(options.min_df) + " of them, fewer than the embedding dimension " +
                     std::to_string(d) + " (lower the dimension or the minimum document frequency, or import more public records)");
  }
  if (public_texts.size() < static_cast<std::size_t>(d)) {
    throw InputError("tfidf-svd embedder: " + std::to_string(public_texts.size()) + " public records, fewer than the embedding dimension " +
                     std::to_string(d) + " (lower the dimension or import more public records)");
  }
  const PublicMatrix a = public_matrix(public_texts, vectorizer, threads);

  // Randomized range finder with power iterations: the range of (A A^T)^q A Omega, Omega Gaussian
  // (vocabulary x l), whose image under A^T, (A^T A)^(q+1) Omega, holds the approximate top right
  // singular vectors. The orthonormalisations cost (rows x l^2) in whichever space is smaller:
  // the records' while they are fewer than the terms (a small corpus), else the vocabulary's
  // (Yelp scale), where A^T A is applied block by block. Both give the same subspace; then
  // Rayleigh-Ritz: the eigenvectors W of Q^T (M M^T) Q, largest eigenvalue first.
  const bool record_space = public_texts.size() <= v;
  const auto l = static_cast<Eigen::Index>(std::min({v, public_texts.size(), static_cast<std::size_t>(d + options.oversampling)}));
  RowMatrixD omega(static_cast<Eigen::Index>(v), l);
  run_chunks(chunk_count(threads, v, 50.0 * double(l)), v, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      CounterRng rng(options.seed, Stream::kEmbedder, f);
      for (Eigen::Index c = 0; c < l; ++c) omega(static_cast<Eigen::Index>(f), c) = rng.normal();
    }
  });
  const auto power = [&](const RowMatrixD& y) {  // M M^T y
    return record_space ? times(a, transpose_times(a, y, threads), threads) : gram_times(a, y, threads);
  };
  RowMatrixD q = orthonormal(record_space ? times(a, omega, threads) : gram_times(a, omega, threads));
  for (int i = 0; i < options.power_iterations; ++i) q = orthonormal(power(q));
  Eigen::MatrixXd g = q.transpose() * power(q);
  g = (0.5 * (g + g.transpose())).eval();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(g);  // ascending eigenvalues
  RowMatrixD w(l, d);
  for (int k = 0; k < d; ++k) w.col(k) = eigen.eigenvectors().col(l - 1 - k);
  RowMatrixD projection;
  if (record_space) {
    // The right singular vectors are A^T Q W, column k of length sqrt(eigenvalue k).
    for (int k = 0; k < d; ++k) {
      const double lambda = eigen.eigenvalues()(l - 1 - k);
      w.col(k) *= lambda > 0 ? 1.0 / std::sqrt(lambda) : 0.0;
    }
    projection = transpose_times(a, q * w, threads);
  } else {
    projection = q * w;
  }
  // A singular vector's sign is the solver's choice: fix it (largest entry positive) so that the
  // model's identity depends on the data only.
  for (int k = 0; k < d; ++k) {
    Eigen::Index at = 0;
    projection.col(k).cwiseAbs().maxCoeff(&at);
    if (projection(at, k) < 0) projection.col(k) *= -1.0;
  }
  return TfidfSvdEmbedder(std::move(vectorizer), projection.cast<float>());
}

TfidfSvdEmbedder::TfidfSvdEmbedder(TfidfVectorizer vectorizer, MatrixF projection)
    : vectorizer_(std::move(vectorizer)), projection_(std::move(projection)) {
  const std::size_t v = vectorizer_.num_features();
  if (static_cast<std::size_t>(projection_.rows()) != v) {
    throw InputError("tfidf-svd model: the projection has " + std::to_string(projection_.rows()) + " rows for " + std::to_string(v) +
                     " vocabulary terms");
  }
  if (projection_.cols() < kTfidfSvdMinDim || projection_.cols() > kTfidfSvdMaxDim) {
    throw InputError("tfidf-svd model: the projection has " + std::to_string(projection_.cols()) + " columns, outside [" +
                     std::to_string(kTfidfSvdMinDim) + ", " + std::to_string(kTfidfSvdMaxDim) + "]");
  }
  if (!projection_.allFinite()) throw InputError("tfidf-svd model: the projection holds a non-finite value");
  // The digest reads the values in this machine's byte order (little-endian wherever secpe runs).
  const auto bytes_of = [](const auto* data, std::size_t count) {
    return std::string_view(reinterpret_cast<const char*>(data), count * sizeof(*data));
  };
  std::string content = "secpe tfidf-svd 1 n=" + std::to_string(vectorizer_.max_n()) + " V=" + std::to_string(v) +
                        " d=" + std::to_string(dim()) + "\n";
  content += bytes_of(vectorizer_.terms().data(), v);
  content += bytes_of(vectorizer_.idf().data(), v);
  content += bytes_of(projection_.data(), static_cast<std::size_t>(projection_.size()));
  name_ = "tfidf-svd(d=" + std::to_string(dim()) + ", V=" + std::to_string(v) + ", digest=" + blake2b_256_hex(content).substr(0, 16) + ")";
}

void TfidfSvdEmbedder::embed(std::span<const std::string> texts, MatrixF& out) const {
  const auto d = static_cast<std::size_t>(projection_.cols());
  out.setZero(static_cast<Eigen::Index>(texts.size()), projection_.cols());
  const SparseRows x = vectorizer_.transform(words_of(texts));
  std::vector<double> row(d);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (SparseRows::InnerIterator it(x, i); it; ++it) {
      const float* pf = projection_.data() + static_cast<std::size_t>(it.index()) * d;
      for (std::size_t c = 0; c < d; ++c) row[c] += it.value() * pf[c];
    }
    double norm2 = 0.0;
    for (const double value : row) norm2 += value * value;
    if (norm2 == 0.0) {
      out(i, 0) = 1.0f;  // see the header: the first axis, never a zero row
      continue;
    }
    const double inv = 1.0 / std::sqrt(norm2);
    float* dst = out.data() + static_cast<std::size_t>(i) * d;
    for (std::size_t c = 0; c < d; ++c) dst[c] = static_cast<float>(row[c] * inv);
  }
}

}  // namespace secpe
