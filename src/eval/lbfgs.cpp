#include "eval/lbfgs.hpp"

#include <cmath>
#include <vector>

namespace secpe {

namespace {

// The last `history` correction pairs (step s, gradient change y) in a ring of preallocated
// vectors: with hundreds of thousands of weights, fresh vectors every iteration cost more than
// the arithmetic.
class Corrections {
 public:
  Corrections(int history, Eigen::Index n) : s_(static_cast<std::size_t>(history), Eigen::VectorXd(n)),
                                             y_(s_), rho_(s_.size()), alpha_(s_.size()) {}
  void clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  // Stores s = x_new - x, y = g_new - g when y . s > 0 (keeps H positive definite).
  void push(const Eigen::VectorXd& x_new, const Eigen::VectorXd& x, const Eigen::VectorXd& g_new,
            const Eigen::VectorXd& g) {
    const std::size_t slot = (first_ + size_) % s_.size();
    s_[slot] = x_new - x;
    y_[slot] = g_new - g;
    const double ys = y_[slot].dot(s_[slot]);
    if (!(ys > 1e-12 * y_[slot].squaredNorm())) return;
    rho_[slot] = 1.0 / ys;
    if (size_ < s_.size()) {
      ++size_;
    } else {
      first_ = (first_ + 1) % s_.size();
    }
  }
  // out = -H g by the two-loop recursion (Nocedal & Wright 7.4), H0 = gamma I with gamma = s.y / y.y
  // of the newest pair.
  void descent_direction(const Eigen::VectorXd& g, Eigen::VectorXd& out) {
    out = -g;
    for (std::size_t k = size_; k-- > 0;) {
      const std::size_t i = at(k);
      alpha_[i] = rho_[i] * s_[i].dot(out);
      out -= alpha_[i] * y_[i];
    }
    if (size_ > 0) {
      const std::size_t newest = at(size_ - 1);
      out *= 1.0 / (rho_[newest] * y_[newest].squaredNorm());
    }
    for (std::size_t k = 0; k < size_; ++k) {
      const std::size_t i = at(k);
      out += (alpha_[i] - rho_[i] * y_[i].dot(out)) * s_[i];
    }
  }

 private:
  std::size_t at(std::size_t k) const { return (first_ + k) % s_.size(); }
  std::vector<Eigen::VectorXd> s_, y_;
  std::vector<double> rho_, alpha_;
  std::size_t first_ = 0, size_ = 0;
};

}  // namespace

LbfgsResult minimize_lbfgs(const Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options) {
  constexpr double kArmijo = 1e-4;
  constexpr int kMaxHalvings = 40;
  LbfgsResult result;
  Eigen::VectorXd g(x.size()), g_new(x.size()), x_new(x.size()), direction(x.size());
  double value = f(x, g);
  Corrections pairs(std::max(options.history, 1), x.size());
  for (;; ++result.iterations) {
    if (g.size() == 0 || g.lpNorm<Eigen::Infinity>() < options.gradient_tolerance) {
      result.converged = true;
      break;
    }
    if (result.iterations == options.max_iterations) break;
    pairs.descent_direction(g, direction);
    double slope = g.dot(direction);
    if (!(slope < 0)) {  // not a descent direction (round-off): restart from steepest descent
      pairs.clear();
      direction = -g;
      slope = -g.squaredNorm();
    }
    // The first step has no curvature information yet: scale it to unit length.
    double step = pairs.empty() ? std::min(1.0, 1.0 / direction.norm()) : 1.0;
    double value_new = 0.0;
    int halvings = 0;
    for (; halvings < kMaxHalvings; ++halvings, step *= 0.5) {
      x_new = x + step * direction;
      value_new = f(x_new, g_new);
      if (value_new <= value + kArmijo * step * slope) break;
    }
    if (halvings == kMaxHalvings) break;
    pairs.push(x_new, x, g_new, g);
    x.swap(x_new);
    g.swap(g_new);
    value = value_new;
  }
  result.value = value;
  return result;
}

}  // namespace secpe
