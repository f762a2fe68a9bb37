// What the two matrix-factorization jobs share: a factor row's dot product and one SGD step
// of a rating on a user row and an item row.
#pragma once

namespace testbed {

inline float dot(const float* a, const float* b, int rank) {
  float s = 0;
  for (int k = 0; k < rank; ++k) s += a[k] * b[k];
  return s;
}

// One step on the squared error of `rating` with L2 regularization `lambda`: both rows
// move from their values before the step.
inline void sgd_rating(float rating, float* l, float* r, int rank, float step_l, float step_r,
                       float lambda) {
  const float err = rating - dot(l, r, rank);
  for (int k = 0; k < rank; ++k) {
    const float lk = l[k];
    l[k] += step_l * (err * r[k] - lambda * lk);
    r[k] += step_r * (err * lk - lambda * r[k]);
  }
}

}  // namespace testbed
