#!/usr/bin/env bash
# Runs commands (by default the emulation's integration tests, once per backend) under a
# kernel that has what this machine's lacks: Debian 12's own 6.1 kernel, with sch_netem,
# sch_fq and cgroup v2, the kernel most users' hosts run.
#
# The kernel boots in a virtual machine (qemu, with KVM where /dev/kvm exists) whose root
# file system is this machine's own, read-only over 9p, under an overlay whose writes all
# go to the guest's memory: nothing of this host changes, and the guest runs the build in
# ./build as it is. The kernel package is downloaded with apt-get into build/kernel-test/
# and unpacked there (never installed).
#
# Why not User-mode Linux (Debian's user-mode-linux, a 6.1 kernel as a process)? On CPUs
# with AMX (Sapphire Rapids and later, as this project's machines have) its first process
# dies of SIGSEGV at boot: UML 6.1 restores its processes' FPU state with a fixed buffer
# smaller than such a CPU's XSAVE area (10,752 bytes here), and the restore fails
# (put_fp_registers -> fatal_sigsegv, measured). A virtual machine has no such limit.
#
# usage: scripts/kernel-test.sh [--backends "netem delayline"] [--filter GTEST_FILTER] [--ci]
#                               [--timeout SECONDS] [--accel tcg|kvm] [-- COMMAND...]
#   --ci: what CI runs (about 14 minutes on the 2-core reference machine): netem through every emulation test but the three
#   named below, and the delay line, which the host's own tests run in full, through
#   bring-up, loss and clean-up.
#   With a COMMAND, runs it once in the guest (as root, in the repository) instead of the
#   tests, e.g. -- bash bench/fidelity.sh --netem-vs-delayline. Exit status: the guest's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

backends="netem delayline"
# The emulation's integration tests: bring-up, links over time and impairments, `link set`,
# the timeline, faults, clean-up and the crash tests, VXLAN between hosts, and the nodes'
# compute and jobs side by side (cgroup v2 here, where the host has v1: a job's groups are
# then its nodes' groups' children).
filter='Bringup*:Dynamics*:BurstLoss*:Cleanup*:Crash*:CrashOnALab*:Faults*:Vxlan*:Metrics*:Compute*:JobsSideBySide*'
ci=0
timeout_s=2400
# qemu's software emulation by default: KVM inside this project's machines (themselves
# virtual machines) starts the guest and then never runs its kernel (measured: no line on
# the console in 45 s, where TCG boots in seconds). Where nested KVM works, --accel kvm.
accel_name=tcg
command=()
while [ $# -gt 0 ]; do
  case "$1" in
    --backends) backends=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --ci) ci=1; shift ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --accel) accel_name=$2; shift 2 ;;
    --) shift; command=("$@"); break ;;
    *) echo "usage: $0 [--backends \"netem delayline\"] [--filter F] [--ci] [--timeout S] [-- COMMAND...]" >&2; exit 2 ;;
  esac
done

[ "$(id -u)" -eq 0 ] || { echo "kernel-test: run it as root" >&2; exit 1; }

filter_netem=$filter
filter_delayline=$filter
if [ "$ci" -eq 1 ]; then
  # Left out under netem: an iperf3 interval's timing against the timeline's steps, which
  # TCG's slow process starts shift by a second (it fails so with both backends there and
  # passes on real hardware), and the two stall tests, which wait out a 30 s budget over a
  # rate change: rates are the sender's TBF with either backend, run on the host. And the
  # scheduled cut and the partition, which are the live cut (run here) applied by the
  # timeline (run on the host), and whose pings TCG's slow process starts would push past
  # the partition's end. And the node faults by schedule and by `pause --for`: signals to
  # processes, the same on any kernel, whose timing against the schedule TCG's slow
  # process starts would decide (the pause and the crash by hand run here, in Faults*).
  # And the reroutes: routes replaced by netlink, the same on any kernel, timed against a
  # convergence delay of 300 ms that TCG's process starts would swamp. And, for CI's time
  # (45 minutes in all), three whose kernel parts the others cover: the bottleneck rates
  # of a three-hop path (the sender's TBF with either backend; under TCG iperf3 itself
  # cannot fill 80 Mbit/s: 61.7 measured), `up` killed anywhere in B4 (Internet2's crash
  # test makes and removes the same kinds of objects) and the 5 s pause (signals, the same
  # on any kernel; the crash by hand stays). And a train's agent killed by its memory limit
  # (85 s here): the launched rank killed by its limit reaches the same cgroup v2 OOM
  # events, and how the train names its agent is the same code on any kernel.
  filter_netem="$filter-Compute.ATrainAgentKilledByTheMemoryLimitIsNamedAsSuch:Dynamics.ThreeStepScheduleShowsInIperfIntervals:Faults.AStalledLink*:Dynamics.AScheduledDown*:Dynamics.APartition*:Dynamics.AScheduledCrash*:Dynamics.ANodePaused*:Dynamics.AReroute*:Dynamics.AScheduledCutIs*:Bringup.ThreeHopPath*:Crash.UpKilledAnywhereInB4*:Faults.APeerPaused*"
  # The delay line on this kernel too, where its code is the host's: the tests of its own
  # parts (hooks, loss, the process and its clean-up). Its RTT tests are left to the host:
  # under TCG a userspace process adds its scheduling to every packet (+4.9 ms on average).
  filter_delayline='Bringup.Internet2PingsEveryOrderedPair:Cleanup.DownLeaves*:Dynamics.FivePercentLoss*:Dynamics.DownAndClean*'
  timeout_s=1800
fi
need=()
for p in qemu-system-x86 busybox-static kmod cpio; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -x build/bin/tb_integration_tests ] || { echo "kernel-test: build first (scripts/setup.sh)" >&2; exit 1; }

# Debian 12's current kernel: the image package linux-image-amd64 depends on.
work=build/kernel-test
mkdir -p "$work"
image=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$image" ] || { echo "kernel-test: no linux-image-amd64 in the package lists (apt-get update?)" >&2; exit 1; }
kver=${image#linux-image-}
root=$work/$kver
if [ ! -f "$root/boot/vmlinuz-$kver" ]; then
  rm -rf "$root" "$work"/*.deb
  (cd "$work" && apt-get download -qq "$image-unsigned" 2>/dev/null || apt-get download -qq "$image")
  mkdir -p "$root"
  dpkg-deb -x "$work"/linux-image-*"$kver"*.deb "$root"
  rm -f "$work"/*.deb
  depmod -b "$repo/$root" "$kver"
fi
mods=$repo/$root/lib/modules/$kver

# The initramfs: busybox, the modules that reach the root over 9p, and an init that builds
# the guest's root (an overlay of the host's, read-only, under tmpfs) and runs the job.
# Named after this script's own hash too: a change to the init below makes a new one.
initramfs=$work/initramfs-$kver-$(sha256sum "$0" | cut -c1-12).gz
if [ ! -f "$initramfs" ]; then
  rm -f "$work"/initramfs-*.gz
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp"/{bin,mods,proc,sys,dev,host,up,newroot}
  cp /usr/bin/busybox "$tmp/bin/busybox"
  # In load order: each module after what it depends on (modules.dep, read backwards).
  order=()
  add() {
    local m=$1 dep
    for dep in $(awk -v m="$m:" '$1 == m {for (i = 2; i <= NF; i++) print $i}' "$mods/modules.dep"); do add "$dep"; done
    case " ${order[*]-} " in *" $m "*) ;; *) order+=("$m") ;; esac
  }
  for m in kernel/drivers/virtio/virtio_pci.ko kernel/net/9p/9pnet_virtio.ko kernel/fs/9p/9p.ko \
           kernel/fs/overlayfs/overlay.ko; do
    add "$m"
  done
  for m in "${order[@]}"; do cp "$mods/$m" "$tmp/mods/"; basename "$m" >> "$tmp/mods/order"; done
  cat > "$tmp/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "kernel-test: insmod $m failed"; done
# The host's root, read-only; msize: 9p's largest message, for reading the build's binaries.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /host || exec sh
mount -t tmpfs -o size=75% tmpfs /up
mkdir -p /up/upper /up/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/up/upper,workdir=/up/work /newroot || exec sh
for d in proc sys dev run tmp; do mkdir -p /newroot/$d; done
mount -t proc proc /newroot/proc; mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev; mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts; mount -t tmpfs tmpfs /newroot/dev/shm
# A repository under /tmp or /run (CI's clean clone) would vanish under the guest's own
# tmpfs there: its overlaid view is set aside and put back on top.
mkdir -p /keep; mount -o bind "/newroot$KT_REPO" /keep
mount -t tmpfs tmpfs /newroot/run; mount -t tmpfs tmpfs /newroot/tmp
mkdir -p "/newroot$KT_REPO"; mount -o move /keep "/newroot$KT_REPO"
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup 2>/dev/null
# KT_REPO comes from the kernel's command line, which passes it to init's environment.
exec switch_root /newroot /bin/bash "$KT_REPO/build/kernel-test/guest.sh"
EOF
  chmod +x "$tmp/init"
  (cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$initramfs"
  rm -rf "$tmp"
  trap - EXIT
fi

# What the guest runs, from the repository (the init finds it through KT_REPO).
guest=$work/guest.sh
{
  echo '#!/bin/bash'
  echo 'set -u'
  echo "cd '$repo'"
  echo "kver='$kver'"
  cat <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mkdir -p /lib/modules/$kver && mount --bind "build/kernel-test/$kver/lib/modules/$kver" /lib/modules/$kver
# ifb with numifbs=0, as the testbed loads it: by default the module makes ifb0 and ifb1.
modprobe ifb numifbs=0
for m in sch_netem sch_htb sch_tbf sch_fq sch_ingress veth vxlan cls_u32 cls_bpf cls_matchall act_mirred act_gact \
         nfnetlink_queue xt_NFQUEUE iptable_filter iptable_mangle iptable_raw xt_statistic \
         xt_cgroup xt_DSCP xt_dscp; do
  modprobe "$m" 2>/dev/null || echo "kernel-test: no module $m"
done
ip link set lo up
echo "kernel-test: guest kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
EOF
  if [ ${#command[@]} -gt 0 ]; then
    printf '%q ' "${command[@]}"; echo
    echo 'rc=$?'
  else
    echo "build/bin/testbed doctor"
    echo 'rc=0'
    for b in $backends; do
      f=filter_$b
      echo "echo \"kernel-test: backend $b\""
      echo "TESTBED_EMULATED_CPU=1 TESTBED_BACKEND=$b build/bin/tb_integration_tests --gtest_filter='${!f}' --gtest_brief=1 2>&1 | tee /tmp/kt-$b.log"
      echo "r=\${PIPESTATUS[0]}; echo \"kernel-test: backend $b: exit \$r; \$(grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ test' /tmp/kt-$b.log | tr '\\n' ' ')\""
      echo '[ $r -eq 0 ] || rc=$r'
    done
  fi
  # netem as an HTB leaf (HTB shaped the links then) made the kernel warn "htb: netem qdisc
  # ... is non-work-conserving?" for every link; on the receiving side's IFB it has no
  # parent to warn.
  echo 'echo "kernel-test: kernel warnings of non-work-conserving qdiscs: $(dmesg | grep -c non-work-conserving)"'
  echo 'echo "kernel-test: guest exit $rc"'
  # The power-off runs asynchronously: init waits for it rather than exit (a kernel panic).
  echo 'sync; echo o > /proc/sysrq-trigger; sleep 30'
} > "$guest"

case "$accel_name" in
  tcg) accel=(-accel tcg,thread=multi -cpu max) ;;
  kvm) accel=(-enable-kvm -cpu host) ;;
  *) echo "kernel-test: --accel tcg or kvm, not '$accel_name'" >&2; exit 2 ;;
esac
log=$work/console.log
echo "kernel-test: booting $kver (${accel[*]}), console in $log"
# 4 GiB and both CPUs: the guest's tmpfs holds what the tests write; the host idles meanwhile.
timeout "$timeout_s" qemu-system-x86_64 "${accel[@]}" -smp "$(nproc)" -m 4096 -nographic -no-reboot \
  -kernel "$root/boot/vmlinuz-$kver" -initrd "$initramfs" \
  -append "console=ttyS0 quiet panic=-1 KT_REPO=$repo" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap \
  -nic none </dev/null 2>&1 | tee "$log" | grep --line-buffered -v '^\s*$' || true
rc=$(sed -n 's/.*kernel-test: guest exit \([0-9]*\).*/\1/p' "$log" | tail -1)
if [ -z "$rc" ]; then
  echo "kernel-test: the guest did not finish (timeout or crash); see $log" >&2
  exit 1
fi
exit "$rc"
