// DiLoCo's outer step (Algorithm 1, line 12 of the paper): the data centers' pseudo-
// gradients (each one's model at the round's start minus its model at the end) averaged,
// and applied to the shared model by SGD with Nesterov momentum, as PyTorch's
// SGD(nesterov=True) applies a gradient g:  b = mu b + g;  theta -= lr (g + mu b).
// With lr 1 and mu 0 it is the average of the data centers' models (FedAvg).
#pragma once

#include <cstddef>
#include <vector>

namespace testbed {

class NesterovOuter {
 public:
  NesterovOuter(double lr, double momentum, size_t parameters)
      : lr_(lr), mu_(momentum), buffer_(parameters, 0.0) {}
  // `theta`: the shared model at the round's start; `delta_sum`: the pseudo-gradients of
  // `workers` data centers, summed. Leaves the next round's shared model in `theta`.
  void step(std::vector<float>& theta, const std::vector<float>& delta_sum, int workers);
  // The momentum, for a data center that joins: every member's is the same.
  const std::vector<double>& momentum() const { return buffer_; }
  void set_momentum(std::vector<double> m) { buffer_ = std::move(m); }

 private:
  double lr_, mu_;
  std::vector<double> buffer_;
};

// theta - local: a data center's pseudo-gradient.
std::vector<float> pseudo_gradient(const std::vector<float>& theta,
                                   const std::vector<float>& local);

}  // namespace testbed
