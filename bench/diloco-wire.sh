#!/usr/bin/env bash
# DiLoCo's pseudo-gradients on the wire: fp32 (the paper's) against int8 (INTELLECT-1's
# int8 all-reduce, arXiv 2412.01152), bf16 and, for Streaming DiLoCo, fp4 against int8
# (issue 77, part 3; docs/diloco.md). Internet2, the systems alternating on one lab,
# ROUNDS rounds, every run's health beside its figures, in the two parts of
# bench/streaming-diloco.sh:
#   target  the logistic-regression job (65 weights: a ring's segment is 7 values, so a
#           256-entry table outweighs them), CLOCKS clocks of 20 ms: final loss, WAN bytes;
#   bytes   a dense model (ResNet-50's parameters x 0.01: segments of about 28,000
#           values), 40 clocks of 100 ms: WAN MB per full sync, final loss.
#
# usage: sudo bench/diloco-wire.sh [CLOCKS] [ROUNDS]   (default 200 2; about 15 min)
set -euo pipefail
cd "$(dirname "$0")/.."
d="--strategy diloco --diloco-h 10"
s="--strategy streaming-diloco --diloco-h 10 --streaming-fragments 5"
SYSTEMS="diloco fp32|$d --diloco-wire fp32;diloco int8|$d --diloco-wire int8;diloco bf16|$d --diloco-wire bf16;streaming P=5 fp4|$s --streaming-wire fp4;streaming P=5 int8|$s --streaming-wire int8" \
  PARTS="target bytes" PROFILES=internet2 OUT=bench/out/diloco-wire \
  bash bench/streaming-diloco.sh "${1:-200}" "${2:-2}"
