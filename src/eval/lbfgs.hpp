#pragma once
// Limited-memory BFGS (Nocedal & Wright, algorithm 7.4/7.5) with a backtracking Armijo line
// search: deterministic (no threads, a fixed order of operations), for smooth convex objectives
// such as the evaluation's logistic regression.
#include <Eigen/Core>
#include <functional>

namespace secpe {

struct LbfgsOptions {
  int max_iterations = 500;
  double gradient_tolerance = 1e-5;  // converged when the gradient's largest entry is below this
  int history = 10;                  // correction pairs kept
};

struct LbfgsResult {
  double value = 0.0;
  int iterations = 0;
  bool converged = false;  // false: the iteration cap, or a line search that could not go down
};

// f(x, gradient) returns f at x and writes its gradient. Minimises from x, which is updated in place.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& gradient)>;
LbfgsResult minimize_lbfgs(const Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options);

}  // namespace secpe
