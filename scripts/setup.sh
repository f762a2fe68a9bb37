#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: installs the Debian packages the testbed
# needs (only those missing), builds, and then, as asked:
#   scripts/setup.sh           set up and build only
#   scripts/setup.sh --test    ... and run every test (unit, and integration as root), then
#                                  the CI subset of the WAN scenarios and the docs check
#   scripts/setup.sh --suite   ... and run every WAN scenario in profiles/scenarios, and
#                                  fuzz each parser of outside input for a minute
#   scripts/setup.sh --up      ... install `testbed`, bring up Internet2 and run its default
#                                  workload (NetStorm synchronizing a scaled ResNet-50)
#   scripts/setup.sh --install ... install `testbed` on the PATH (cmake --install)
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config
  ninja-build ccache              # CI's fresh clones compile only what changed (CMakeLists.txt)
  libnl-3-dev libnl-route-3-dev   # netlink: namespaces' links, addresses, routes, qdiscs
  libnetfilter-queue-dev          # the userspace delay line (kernels without sch_netem)
  zlib1g-dev                      # reads /proc/config.gz: does the kernel have netem?
  libyaml-cpp-dev                 # topology profiles
  nlohmann-json3-dev              # plans, state files, --json output
  libgtest-dev libgmock-dev       # tests
  libboost1.81-dev libboost-filesystem1.81-dev  # Boost.Process v2: starting processes
  libglpk-dev                     # APSP: the linear program of parameter-server placement
  librocksdb-dev                  # DRPS: the disk-resident parameter store
  libigraph-dev                   # import graphml/gml: real topologies (Internet Topology Zoo)
  libpcap0.8-dev                  # testbed capture: packets of link directions
  tshark                          # tests: reading a capture's pcapng back, per interface
  prometheus-cpp-dev libzmq3-dev cppzmq-dev     # node runtime, metrics
  iptables                        # loss and NFQUEUE rules of the delay line
  iproute2 iperf3 iputils-ping    # measuring the emulation in tests and benchmarks
  prometheus                      # the lab's own Prometheus server (and promtool, for tests)
  gnuplot-nox                     # testbed report: PNG plots without Grafana
  python3 bc                      # benchmark helpers
  python3-torch                   # examples/: users' own PyTorch jobs under `testbed launch`
  containernetworking-plugins     # tests: host-device and static, the calls a CNI makes on a Kubernetes node
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these packages are missing and installing them needs root: ${missing[*]}" >&2
    echo "setup: run it as root, e.g. sudo $0 $*" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Ninja: every build here, CI's and developers', compiles with the same command lines, so
# that they share ccache's entries (Make's run each compile from the object's folder, and
# the relative paths differ). A build directory made before with Make keeps its generator.
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
cmake "${generator[@]}" -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

# Integration tests that CI leaves to --suite, for CI's time (45 minutes in all,
# docs/development.md#cis-time); each one's parts are covered by faster tests CI runs:
# - PyTorch's ranks launched over three hosts (143-161 s measured): PyTorch under
#   `launch` on one box is LaunchPytorch.UnmodifiedJobsRunOnEveryInternet2Node, a run
#   over three hosts is PlainHosts.NetStormAndBspOverThreeHostsEndWithTheOneBoxModel, and
#   a launch's messages between hosts are the unit tests' and fuzz_host_launch's.
suite_only='^PlainHosts\.LaunchRunsPyTorchOverThreeHostsAsOnOneBox$'

case "${1:-}" in
  "") ;;
  --test)
    # First the layers: an include that runs up a layer or crosses between systems fails
    # here, before anything runs (docs/architecture.md#the-layers).
    scripts/check-layers.py
    ctest --test-dir build --output-on-failure -E "$suite_only"
    echo "setup: built and ctest passed at ${SECONDS} s"
    # Then the emulation under a kernel that has netem (Debian 12's own 6.1, booted by qemu
    # with this machine's files as its root, read-only): the path most users' kernels take,
    # which this machine's cannot (scripts/kernel-test.sh; --ci says what it leaves out).
    scripts/kernel-test.sh --ci
    echo "setup: kernel test passed at ${SECONDS} s"
    # Then the CI subset of the WAN scenarios (profiles/scenarios/ci): a change that breaks
    # training over the emulated WAN fails here. --suite runs them all.
    build/bin/testbed regress profiles/scenarios/ci --junit build/scenarios-junit.xml \
      --out build/scenario-results
    # And the docs: every block of README.md and docs/ marked runnable is run, the others'
    # commands checked by their arguments (docs/development.md).
    scripts/docs-check.py
    echo "setup: scenarios and docs check passed at ${SECONDS} s"
    # The fuzz targets' inputs were replayed by ctest (FuzzReplay.*); libFuzzer itself, with
    # the sanitizers, is a clang build of its own that takes 8 minutes to compile: --suite.
    ;;
  --suite)
    ctest --test-dir build --output-on-failure -R "$suite_only"
    build/bin/testbed regress profiles/scenarios --junit build/scenarios-junit.xml \
      --out build/scenario-results
    # The parsers of outside input under libFuzzer, 60 s each (tests/fuzz/, build-fuzz/).
    scripts/fuzz.sh 60
    ;;
  --install)
    cmake --install build
    ;;
  --up)
    cmake --install build
    testbed up internet2.yaml
    testbed train internet2          # the profile's workload: NetStorm, ResNet-50 x0.1, 5 iterations
    ;;
  *)
    echo "usage: $0 [--test | --suite | --install | --up]" >&2
    exit 2
    ;;
esac
