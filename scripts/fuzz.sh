#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets of tests/fuzz with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer (in build-fuzz/, apart from the
# main build), replays every regression input (tests/fuzz/regressions/TARGET/: inputs that
# once failed, kept so that they never fail again), then fuzzes each target for SECONDS
# (default 30) from its seeds: the bundled profiles and scenarios, and the committed corpus
# tests/fuzz/corpus/TARGET/. Prints per target the inputs run, inputs per second and
# findings; a finding is saved as build-fuzz/findings/TARGET-crash-* and fails the script.
# CI runs it with 30 s; a benchmark with 600.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_profile fuzz_scenario fuzz_expectation fuzz_traces fuzz_wire fuzz_sync_policy
           fuzz_agent_reply fuzz_proc_net_tcp fuzz_host_placement fuzz_agent_setup
           fuzz_host_launch)
fi

# clang and its runtimes (libFuzzer's and the sanitizers') are Debian packages.
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "fuzz: missing ${missing[*]}; installing them needs root" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build-fuzz -DTESTBED_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz --target tb_fuzz -j"$(nproc)" >/dev/null

# What seeds each target besides its own corpus: the bundled files it parses.
seeds_of() {
  case "$1" in
    fuzz_profile) echo profiles ;;
    fuzz_scenario) echo profiles/scenarios ;;
    *) ;;
  esac
}

failed=0
printf '%-20s %10s %12s %9s\n' TARGET INPUTS PER_SECOND FINDINGS
for t in "${targets[@]}"; do
  bin=build-fuzz/bin/$t
  mkdir -p "build-fuzz/corpus/$t" build-fuzz/findings "tests/fuzz/corpus/$t"
  # Every input that once failed must pass: run once each.
  regressions=(tests/fuzz/regressions/"$t"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! "$bin" "${regressions[@]}" >"build-fuzz/$t-regressions.log" 2>&1; then
      echo "fuzz: $t fails a regression input; see build-fuzz/$t-regressions.log" >&2
      failed=1
    fi
  fi
  before=$(ls build-fuzz/findings | grep -c "^$t-" || true)
  # -timeout: an input that takes 10 s is a hang, a finding too. -rss_limit_mb: 2 GiB of
  # the machine's 24, so a parser that allocates without bound is reported, not swapped.
  # New inputs go to build-fuzz/corpus/TARGET (the first directory); the rest are seeds.
  # shellcheck disable=SC2046
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$t-" "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
    $(seeds_of "$t") >"build-fuzz/$t.log" 2>&1 || true
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build-fuzz/$t.log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "build-fuzz/$t.log" | tail -1)
  after=$(ls build-fuzz/findings | grep -c "^$t-" || true)
  found=$((after - before))
  [ "$found" -gt 0 ] && failed=1
  printf '%-20s %10s %12s %9s\n' "$t" "${runs:-?}" \
    "$([ -n "${runs:-}" ] && [ "${took:-0}" -gt 0 ] && echo $((runs / took)) || echo '?')" "$found"
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: findings in build-fuzz/findings (logs: build-fuzz/TARGET.log); fix them and keep" \
       "each input in tests/fuzz/regressions/TARGET/" >&2
  exit 1
fi
