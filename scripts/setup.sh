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

mode=${1:-}
case "$mode" in
  "" | --test | --suite | --install | --up) ;;
  *)
    echo "usage: $0 [--test | --suite | --install | --up]" >&2
    exit 2
    ;;
esac

# Each step says how long it took: set-up is timed by whoever runs it (issue: 10 minutes
# from a fresh clone for --up on a 2-core machine).
step_start=$SECONDS
step() {
  echo "setup: $1 in $((SECONDS - step_start)) s (${SECONDS} s in all)"
  step_start=$SECONDS
}

# What building and running a lab needs: every mode installs these.
packages=(
  build-essential cmake pkg-config
  ninja-build ccache              # CI's fresh clones compile only what changed (CMakeLists.txt)
  libnl-3-dev libnl-route-3-dev   # netlink: namespaces' links, addresses, routes, qdiscs
  libnetfilter-queue-dev          # the userspace delay line (kernels without sch_netem)
  libnftnl-dev libmnl-dev         # the delay hooks as one nf_tables transaction per namespace
  zlib1g-dev                      # reads /proc/config.gz: does the kernel have netem?
  libyaml-cpp-dev                 # topology profiles
  nlohmann-json3-dev              # plans, state files, --json output
  libboost1.81-dev libboost-filesystem1.81-dev  # Boost.Process v2: starting processes
  libglpk-dev                     # APSP: the linear program of parameter-server placement
  librocksdb-dev                  # DRPS: the disk-resident parameter store
  libigraph-dev                   # import graphml/gml: real topologies (Internet Topology Zoo)
  libpcap0.8-dev                  # testbed capture: packets of link directions
  prometheus-cpp-dev libzmq3-dev cppzmq-dev     # node runtime, metrics
  iptables                        # loss and NFQUEUE rules of the delay line
  iproute2 iputils-ping           # the tour's ping, and the kernel's own tools
  prometheus                      # the lab's own Prometheus server (and promtool, for tests)
  gnuplot-nox                     # testbed report: PNG plots without Grafana
  python3 bc                      # benchmark helpers
)
# What only the tests need.
test_packages=(
  libgtest-dev libgmock-dev       # unit and integration tests
  tshark                          # tests: reading a capture's pcapng back, per interface
  iperf3                          # measuring the emulation in tests and benchmarks
  containernetworking-plugins     # tests: host-device and static, the calls a CNI makes on a Kubernetes node
)
# The tour's and the tests' PyTorch jobs (examples/, `testbed launch`): 60 s of unpacking,
# so --up installs it while the build runs (it is not needed until the tour).
example_packages=(python3-torch)

missing_of() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
apt_updated=
install_packages() {
  [ $# -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these packages are missing and installing them needs root: $*" >&2
    echo "setup: run it as root, e.g. sudo $0 $mode" >&2
    exit 1
  fi
  echo "setup: installing $*"
  if [ -z "$apt_updated" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

wanted=("${packages[@]}")
[ "$mode" = --up ] || [ "$mode" = --install ] || wanted+=("${test_packages[@]}" "${example_packages[@]}")
mapfile -t missing < <(missing_of "${wanted[@]}")
install_packages "${missing[@]}"
step "packages"

# The examples' packages for --up, beside the build: apt's unpacking is mostly disk, the
# build is CPU. Waited for (and its failure reported) before the lab comes up.
examples_pid=
if [ "$mode" = --up ]; then
  mapfile -t missing < <(missing_of "${example_packages[@]}")
  if [ ${#missing[@]} -gt 0 ]; then
    mkdir -p build
    install_packages "${missing[@]}" > build/examples-apt.log 2>&1 &
    examples_pid=$!
  fi
fi

# Ninja: every build here, CI's and developers', compiles with the same command lines, so
# that they share ccache's entries (Make's run each compile from the object's folder, and
# the relative paths differ). A build directory made before with Make keeps its generator.
# --up and --install build only the three programs a lab runs (testbed, testbed-agent,
# testbed-delayline: 322 of the tree's 464 targets are tests and fuzz replays), and
# configure without the tests (GoogleTest need not be installed); the other modes build
# everything. Switching between them changes no compile command: nothing is rebuilt.
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
targets=()
testing=ON
if [ "$mode" = --up ] || [ "$mode" = --install ]; then
  targets=(--target testbed testbed-agent testbed-delayline)
  testing=OFF
fi
cmake "${generator[@]}" -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBUILD_TESTING="$testing" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
step "build"

# Integration tests that CI leaves to --suite, for CI's time (45 minutes in all,
# docs/development.md#cis-time); each one's parts are covered by faster tests CI runs:
# - PyTorch's ranks launched over three hosts (143-161 s measured): PyTorch under
#   `launch` on one box is LaunchPytorch.UnmodifiedJobsRunOnEveryInternet2Node, a run
#   over three hosts is PlainHosts.NetStormAndBspOverThreeHostsEndWithTheOneBoxModel, and
#   a launch's messages between hosts are the unit tests' and fuzz_host_launch's.
suite_only='^PlainHosts\.LaunchRunsPyTorchOverThreeHostsAsOnOneBox$'

case "$mode" in
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
    cmake --install build >/dev/null
    step "install"
    if [ -n "$examples_pid" ]; then
      if ! wait "$examples_pid"; then
        echo "setup: installing ${example_packages[*]} failed (the tour's PyTorch jobs need it):" >&2
        cat build/examples-apt.log >&2
        exit 1
      fi
      rm -f build/examples-apt.log
    fi
    # What this machine's emulation carries (docs/fit.md): `up` says where the lab stands
    # against it, and `up --fit scale` would fit the lab to it.
    testbed doctor --budget
    step "budget"
    testbed up internet2.yaml
    step "up"
    testbed train internet2          # the profile's workload: NetStorm, ResNet-50 x0.1, 5 iterations
    step "train"
    ;;
esac
