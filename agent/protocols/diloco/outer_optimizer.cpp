#include "agent/protocols/diloco/outer_optimizer.h"

#include <stdexcept>

namespace testbed {

void NesterovOuter::step(std::vector<float>& theta, const std::vector<float>& delta_sum,
                         int workers) {
  if (delta_sum.size() != theta.size() || buffer_.size() != theta.size() || workers < 1)
    throw std::invalid_argument("outer step: the pseudo-gradients do not fit the model");
  for (size_t k = 0; k < theta.size(); ++k) {
    const double g = static_cast<double>(delta_sum[k]) / workers;
    buffer_[k] = mu_ * buffer_[k] + g;
    theta[k] = static_cast<float>(theta[k] - lr_ * (g + mu_ * buffer_[k]));
  }
}

std::vector<float> pseudo_gradient(const std::vector<float>& theta,
                                   const std::vector<float>& local) {
  std::vector<float> d(theta.size());
  for (size_t k = 0; k < theta.size(); ++k) d[k] = theta[k] - local[k];
  return d;
}

}  // namespace testbed
