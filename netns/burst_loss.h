// Bursty loss: the Gilbert-Elliott model, one meaning for both backends. A direction is in
// a good or a bad state; each packet is lost with the loss of the state it finds, and then
// the state moves on: good to bad with probability `p`, bad to good with `r`. With
// `bad_loss` 1 and `good_loss` 0 (the defaults: Gilbert's model) losses come in bursts of
// geometric length, mean 1 / r, separated by gaps of mean 1 / p packets, and the loss rate
// is p / (p + r).
//
// netem has the same chain (sch_netem.c, loss_gilb_ell: its a1..a4 are p, r, h = 1 -
// bad_loss and good_loss; tc_objects.cpp encodes them); the delay line runs this class.
// Both decide per packet as the kernel hands it over: a GSO super-packet of TCP is one
// packet here, as it is to netem and to iptables' Bernoulli loss.
#pragma once

#include <cstdint>
#include <random>

namespace testbed {

struct GilbertElliott {
  double p = 0;          // good -> bad, per packet
  double r = 1;          // bad -> good, per packet
  double bad_loss = 1;   // loss in the bad state (1 - h in the literature)
  double good_loss = 0;  // loss in the good state (1 - k)
  bool operator==(const GilbertElliott&) const = default;

  // The long-run fraction of packets in the bad state, and of packets lost.
  double bad_share() const { return p + r > 0 ? p / (p + r) : 0; }
  double mean_loss() const { return bad_share() * bad_loss + (1 - bad_share()) * good_loss; }
  // Mean length of a bad period, in packets (a burst of losses, in Gilbert's model).
  double mean_bad_run() const { return r > 0 ? 1 / r : 0; }
};

// The chain itself, seeded: the same seed gives the same losses.
class GilbertElliottLoss {
 public:
  GilbertElliottLoss(GilbertElliott model, uint64_t seed) : model_(model), rng_(seed) {}
  // Whether the next packet is lost; advances the chain.
  bool lose();
  bool bad() const { return bad_; }

 private:
  GilbertElliott model_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  bool bad_ = false;  // netem starts good too
};

}  // namespace testbed
