#include "controller/cli/verbs.h"

namespace testbed::cli {

const std::map<std::string, Verb>& verbs() {
  static const std::map<std::string, Verb> kVerbs = {
      {"validate",
       {run_validate, "validate FILE", "check a topology profile and report every error"}},
      {"plan",
       {run_plan,
        "plan FILE [--json [--changes-until T]] [--steps] [--routes] [--backend B] [--hosts "
        "N|PLACEMENT [--host H]]",
        "show what 'up' would create (no root needed); with --hosts, cut over hosts"}},
      {"up",
       {run_up,
        "up FILE [--dry-run] [--backend auto|netem|delayline] [--time-scale X] "
        "[--release-window DURATION] [--prometheus on|off|existing] [--grafana] "
        "[--hosts N|PLACEMENT --host H [--key FILE]] [--adopt] [--start-at T] "
        "[--metrics ADDR:PORT] [--foreground] [--timings] [--fit scale|refuse|off|F]",
        "create the lab (namespaces, shaped links, delay, routes) and start its schedules",
        "fitted to this machine (docs/fit.md; the budget: testbed doctor --budget):\n"
        "  --fit off                     the profile's rates; a lab over the budget gets a\n"
        "                                note (the default)\n"
        "  --fit scale                   over the budget: every rate times budget/demand, and\n"
        "                                every model a run trains on the lab by the same\n"
        "  --fit refuse                  over the budget: nothing is made, the figures said\n"
        "  --fit F                       every rate and model by F (0.01..1), whatever the\n"
        "                                budget: one factor for a comparison over machines\n"
        "one lab over several hosts (docs/multihost.md):\n"
        "  --hosts N|PLACEMENT --host H  bring up only host H's slice: its nodes, the links\n"
        "                                among them, its ends of links to other hosts (VXLANs\n"
        "                                it makes when PLACEMENT gives the hosts' underlay;\n"
        "                                otherwise made by others: meshnet, a CNI)\n"
        "  --key FILE                    this host's key pair when PLACEMENT has keys\n"
        "                                (default: H.key beside PLACEMENT; testbed keys)\n"
        "  --adopt                       use node namespaces that already exist (a pod's);\n"
        "                                down undoes what up did in them and keeps them\n"
        "  --start-at T                  the schedules' time zero, Unix seconds: the same on\n"
        "                                every host, so their link changes coincide\n"
        "  --metrics ADDR:PORT           where the exporter listens: 127.0.0.1 or 0.0.0.0\n"
        "  --foreground                  stay until a signal, then take the lab down"}},
      {"export",
       {run_export,
        "export k8s FILE --out DIR [--namespace NS] [--image IMAGE] [--metrics-port P] "
        "[--no-keys]",
        "write the lab as Kubernetes resources for meshnet-cni (no root needed)",
        "files written in DIR:\n"
        "  meshnet-topology.yaml  a meshnet Topology per data center: its links, each with\n"
        "                         the same uid at both ends, the testbed's interface names\n"
        "                         and /30 addresses\n"
        "  testbed-pods.yaml      a ConfigMap (the profile, the placement) and a Pod per data\n"
        "                         center: the testbed as a native sidecar (IMAGE, default\n"
        "                         testbed:latest; NET_ADMIN, NET_RAW, SYS_ADMIN) applying\n"
        "                         that pod's slice, ready when its startupProbe passes;\n"
        "                         Prometheus scrape annotations for port P (default 9464);\n"
        "                         a stand-in 'workload' container to replace with your own\n"
        "  placement.yaml         every pod its own host, as the sidecars read it, with\n"
        "                         each pod's public key\n"
        "  testbed-keys.yaml      (0600) a Secret per pod with its CURVE key pair, mounted\n"
        "                         by that pod only\n"
        "options:\n"
        "  --no-keys              no key pairs: no Secrets, no keys in the placement\n"
        "apply meshnet-topology.yaml before testbed-keys.yaml and testbed-pods.yaml\n"
        "(docs/multihost.md)"}},
      {"import",
       {run_import,
        "import cloud --regions CLOUD:REGION,... [--names N1,...] [--rate-scale X] "
        "[--tier premium|standard] [--partial] [--lab NAME] [--data DIR] [--out FILE] [--json]\n"
        "       testbed import graphml|gml FILE [--lab NAME] [--default-delay D] "
        "[--default-rate R] [--rate-scale X] [--largest-component] [--out FILE] [--json]",
        "write a profile from measured figures between AWS, Azure and GCP regions, or from a "
        "real network's topology (the Internet Topology Zoo's GraphML or GML; no root needed)",
        "graphml|gml FILE: a node per node (its label made a valid, unique name), a link per\n"
        "edge:\n"
        "  delay   the great-circle distance between the ends' coordinates at the speed of\n"
        "          light in fibre (c/1.468); a link with an end without them takes\n"
        "          --default-delay, else the import is refused naming the nodes\n"
        "  rate    the edge's LinkSpeedRaw, else --default-rate (default 100mbit), both times\n"
        "          --rate-scale (default 1); parallel edges are summed, self-loops left out\n"
        "  a graph that is not connected is refused with its components named, or imported\n"
        "  as its largest component with --largest-component\n"
        "cloud: a full mesh of the regions named (a GCP region may omit its zone):\n"
        "  rate    iperf3's received throughput (64 flows, large VMs) x --rate-scale (default\n"
        "          0.01), over TCP's 1448/1514 share of a link; a direction not measured takes\n"
        "          the reverse direction's figure, and says so\n"
        "  delay   half ping's average round trip; jitter: its mdev x sqrt(3/2)\n"
        "  --tier  GCP's network tier (default premium)\n"
        "  --data  the tables (default: the bundled profiles/data/cloud-regions, Skyplane's\n"
        "          measurements, Apache-2.0)\n"
        "  --partial  leave out a pair with no figures (few pairs within GCP or Azure\n"
        "          were measured): its traffic is routed over the others\n"
        "a region or pair without data is refused by name (unless --partial); the profile is\n"
        "validated (a lab that is not connected is refused) before it is written (--out, else\n"
        "standard output)"}},
      {"down", {run_down, "down [LAB]", "remove everything the lab created"}},
      {"status",
       {run_status, "status [LAB] [--json] [--routes] [--ready]",
        "list labs, or one lab's nodes, links and routes (--routes: every route, however "
        "many; --ready: exit status only, 0 when up)"}},
      {"exec",
       {run_exec, "exec [--lab LAB] NODE -- CMD [ARGS...]",
        "run a command inside a node's namespace"}},
      {"launch",
       {run_launch,
        "launch [LAB] [--nodes all|N1,N2,...] [--max-seconds T] [--target-loss L] [--name "
        "NAME] [--master-port P] [--agents-listen ADDR:PORT] [--json] -- CMD [ARGS...]",
        "run your own program (a PyTorch job, any command) once in each node with torchrun's "
        "environment; its metric lines, WAN bytes and the emulation's health are recorded"}},
      {"keys",
       {run_keys, "keys PLACEMENT --out DIR",
        "make a CURVE key pair for every host of a placement (no root needed)",
        "written in DIR (made 0700; it must not exist yet or be empty):\n"
        "  HOST.key        each host's key pair, 0600: copy it to that host only\n"
        "  placement.yaml  PLACEMENT with every host's public key under keys:, for every host\n"
        "with keys in its placement, a run across hosts admits only these hosts, each for its\n"
        "own nodes, encrypted (docs/multihost.md#security)"}},
      {"agents",
       {run_agents, "agents [LAB] --control tcp://ADDR:PORT [--controller-host H]",
        "on a host of a lab spread over hosts: run its nodes' agents for a train controlled "
        "from another host (train --agents-listen ADDR:PORT)"}},
      {"clean", {run_clean, "clean [--all]", "remove what crashed runs left (--all: every lab)"}},
      {"link",
       {run_link,
        "link set LAB A B [--dir a2b|b2a|both] [--rate R] [--delay D] [--loss L] | link down|up "
        "LAB A B [--dir a2b|b2a|both]",
        "change a live link in place, or cut it (a fault) and restore it"}},
      {"capture",
       {run_capture,
        "capture [LAB] (A B | --node N | --all) [--dir a2b|b2a|both] [--duration T] "
        "[--snaplen N] --out FILE.pcapng [--json]",
        "record the packets of link directions into one pcapng file, an interface per "
        "direction named FROM->TO, in time order; stops at --duration or Ctrl-C",
        "each direction is captured as its sender's device sends it (after the rate limit;\n"
        "  the delay is added at the receiver). The summary gives each direction's packets\n"
        "  beside the packets the device sent meanwhile (the kernel's count), and any the\n"
        "  capture lost. Open the file in Wireshark or read it with tshark -r / tcpdump -r."}},
      {"partition",
       {run_partition, "partition LAB NODE[,NODE...] [--for D | --heal]",
        "cut the nodes from the rest (every link crossing the cut down, both ways); --for D: "
        "then restore what it cut; --heal: restore every crossing link",
        "a link already down stays as it was after --for, so partitions may overlap; a\n"
        "  profile's `partitions:` does the same at set times (docs/faults.md)."}},
      {"node",
       {run_node,
        "node crash|pause|resume|restart|leave|join LAB NODE [--for D] | node set LAB NODE --cpus "
        "X|all",
        "crash a node's processes (SIGKILL), pause them (SIGSTOP; --for D: then resume), "
        "resume them, or restart the launched ranks a crash killed; set: change its CPU share",
        "the processes are the node's job: a train's agents, a launch's ranks (each rank's\n"
        "  whole process group) and what exec started; never the lab's own (delay lines,\n"
        "  timeline, exporter). restart: the launch runs each rank the node's last crash\n"
        "  killed again, same command and environment (an elastic job rejoins); exit 2 when\n"
        "  there is none. A profile's node `schedule` does the same at set times\n"
        "  (docs/faults.md). set --cpus: the share of the node's control group, in place,\n"
        "  in a lab whose profile gives some node cpus, cpuset or memory (docs/compute.md)."}},
      {"train",
       {run_train,
        "train [LAB] [--strategy NAME[@NODE]] [--iterations N] [--model M|JOB] [--compute-ms "
        "MS|MIN-MAX] [--json] [--agents-listen ADDR:PORT] ... (defaults: the profile's "
        "workload; every strategy and option: testbed train --help)",
        "synchronize a model over the lab with a strategy, or train a job on a parameter "
        "server; report iteration times and loss",
        "a lab spread over hosts (docs/multihost.md): run train on one host's slice with\n"
        "  --agents-listen ADDR:PORT  an address of this host that the other hosts reach;\n"
        "                             on each other host run\n"
        "                             testbed agents LAB --control tcp://ADDR:PORT\n"
        "                             (either may start first; a lost host is named)\n"
        "  --van-security plain|curve the model traffic's: CURVE with keys new for the run\n"
        "                             (the default over hosts) or PLAIN with its secret (on\n"
        "                             one box); plain over hosts sends that secret in clear"}},
      {"report",
       {run_report, "report LAB|DIR [--out DIR]",
        "draw PNG plots of a lab's runs and links (gnuplot), for use without Grafana"}},
      {"run",
       {run_run, "run SCENARIO [--out DIR] [--fit scale|refuse|off|F]",
        "run a scenario: each strategy on the same seeded WAN, judged by its expectations"}},
      {"regress",
       {run_regress,
        "regress DIR [--junit FILE] [--baseline FILE] [--tolerance X] [--save-baseline FILE] "
        "[--out DIR]",
        "run every scenario in DIR; pass/fail table, JUnit XML, regressions against a baseline"}},
      {"doctor",
       {run_doctor, "doctor [--budget [--seconds S]] [--json]",
        "probe the kernel's emulation features; with --budget, measure what this machine's "
        "emulation carries while healthy and keep it for --fit (docs/fit.md)"}},
      {"placement",
       {run_placement,
        "placement FILE [--model M] [--scale S] [--rate-scale X] [--server NODE] [--capacity "
        "undirected|directed] [--seed N] [--draws R] [--redraws N] [--json]",
        "where APSP puts the parameter server: LP bounds, epoch times, paths and rates"}},
  };
  return kVerbs;
}

std::string usage_of(const std::string& verb) {
  return "testbed " + std::string(verbs().at(verb).usage);
}

}  // namespace testbed::cli
