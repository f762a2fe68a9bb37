#include "netns/burst_loss.h"

namespace testbed {

bool GilbertElliottLoss::lose() {
  // The packet takes the state it finds; the chain moves after, as in netem (the draw for
  // the move comes first there too, which changes nothing: the two draws are independent).
  const bool lost = uniform_(rng_) < (bad_ ? model_.bad_loss : model_.good_loss);
  bad_ = uniform_(rng_) < (bad_ ? 1 - model_.r : model_.p);
  return lost;
}

}  // namespace testbed
