#include "agent/protocols/diloco/inner_optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace testbed {
namespace {

class InnerSgd : public InnerOptimizer {
 public:
  explicit InnerSgd(int workers) : factor_(static_cast<float>(workers)) {}
  void step(std::vector<float>& w, const SparseUpdate& u) override {
    if (u.keys.empty()) {
      for (size_t k = 0; k < w.size(); ++k) w[k] += factor_ * u.values[k];
    } else {
      for (size_t i = 0; i < u.keys.size(); ++i) w[u.keys[i]] += factor_ * u.values[i];
    }
  }

 private:
  float factor_;
};

class InnerAdamW : public InnerOptimizer {
 public:
  // PyTorch's AdamW defaults where the paper gives none: betas (0.9, 0.999), epsilon 1e-8.
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;

  InnerAdamW(const DilocoPolicy& p, size_t parameters, int workers)
      : lr_(p.inner_lr),
        decay_(p.weight_decay),
        factor_(workers),
        m_(parameters, 0.0),
        v_(parameters, 0.0),
        g_(parameters, 0.0) {}

  void step(std::vector<float>& w, const SparseUpdate& u) override {
    std::fill(g_.begin(), g_.end(), 0.0);
    // The update descends: its negative, the data center's own, is the gradient's direction.
    if (u.keys.empty()) {
      for (size_t k = 0; k < w.size(); ++k) g_[k] = -factor_ * u.values[k];
    } else {
      for (size_t i = 0; i < u.keys.size(); ++i) g_[u.keys[i]] -= factor_ * u.values[i];
    }
    ++t_;
    const double c1 = 1 - std::pow(kBeta1, t_), c2 = 1 - std::pow(kBeta2, t_);
    for (size_t k = 0; k < w.size(); ++k) {
      m_[k] = kBeta1 * m_[k] + (1 - kBeta1) * g_[k];
      v_[k] = kBeta2 * v_[k] + (1 - kBeta2) * g_[k] * g_[k];
      const double wk = w[k] * (1 - lr_ * decay_);  // decoupled: not through the moments
      w[k] = static_cast<float>(wk - lr_ * (m_[k] / c1) / (std::sqrt(v_[k] / c2) + kEpsilon));
    }
  }

 private:
  double lr_, decay_, factor_;
  std::vector<double> m_, v_, g_;
  int t_ = 0;
};

}  // namespace

std::unique_ptr<InnerOptimizer> make_inner_optimizer(const DilocoPolicy& policy, size_t parameters,
                                                     int workers) {
  if (policy.inner == "sgd") return std::make_unique<InnerSgd>(workers);
  if (policy.inner == "adamw") return std::make_unique<InnerAdamW>(policy, parameters, workers);
  throw std::invalid_argument("unknown inner optimizer '" + policy.inner + "' (sgd or adamw)");
}

}  // namespace testbed
