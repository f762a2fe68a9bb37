#!/usr/bin/python3
"""Fails when an include runs up a layer, crosses between systems, or is not path-qualified.

The tree is the architecture (docs/architecture.md): each folder is a layer, and a layer
includes only what is below it. This script reads every `#include "..."` in controller/,
agent/ and netns/ and checks it against the ranks below. CI runs it before building.

  scripts/check-layers.py            check; exit 1 and name each offending include
  scripts/check-layers.py --count    also print the counts per rule (the issue's acceptance)
  scripts/check-layers.py --legacy   resolve unqualified includes by file name, as the flat
                                     include path did (to count an older tree's arrows)
  scripts/check-layers.py --root DIR check another tree (tests/layers/ uses it)
  scripts/check-layers.py --systems  also print, per system, the files outside its own
                                     folders and the registries whose code or strings name
                                     it (issue 76's count: what a system still reaches into)

It also fails where code outside the registries compares a strategy's name: the controller
asks a strategy's traits (controller/training/strategy_registry.h) instead; and where a
core folder (a core that systems plug hooks into) names a system in code or in a string:
the core must not know who plugs in.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Higher includes lower, never the reverse; folders of equal rank are siblings and include
# neither. A folder's subfolders share its rank (training/gaia is training). Why each sits where it does:
CONTROLLER_RANKS = {
    "topology": 0,   # the profile as pure data: nodes, links, schedules, units
    "lab": 1,        # plan, planner, applier, lab state: built from the topology
    "hosts": 2,      # slices of a plan per host
    "dynamics": 3,   # live link changes: re-plans a link with the planner
    "health": 4,     # watches the links dynamics controls
    "observe": 5,    # metrics and status: reads the lab, its links and their health
    "training": 6,   # the systems' pure logic; agent groups over a lab's hosts
    "options": 7,    # the systems' settings, checked against their strategies
    "launch": 7,     # users' own jobs: a sibling of options, using training's loss curve
    "placement": 8,  # APSP's placement: reads the workload's options
    "scenario": 8,   # scenarios name a profile and its workload options
    "runs": 9,       # orchestration: everything below
    "cli": 10,       # the verbs: parse arguments, call one function below
}
AGENT_RANKS = {
    "contracts": 0,  # the messages between controller and agents: both ends include them
    "transport": 0,  # ZeroMQ, the wire format and the messages on it
    "store": 0,      # parameter stores
    "jobs": 0,       # the training jobs (models, data), pure
    "runtime": 1,    # the event loop and the Protocol interface
    "protocols": 2,  # a Protocol per system, over runtime, transport, jobs and store
    "": 3,           # agent_main.cpp
}

# A system's folders (by subfolder name) may include their own system's folders on any layer
# and the shared ones, never another system's. The parameter server is the core the others
# build on (MLfabric, DRPS and Gaia are variants of it), and the all-reduces are collectives
# any system may reduce with (DiLoCo's outer step), so any system may include `ps` and
# `allreduce`.
SYSTEM_PARENTS = (
    "controller/training/", "controller/runs/", "agent/protocols/", "agent/contracts/")
# NetStorm's logic lives in training/netstorm, its runs in tree; Streaming DiLoCo is DiLoCo
# with its fragments streamed (its paper's own framing), built on DiLoCo's optimizers.
SAME_SYSTEM = {"netstorm": "tree", "streaming_diloco": "diloco"}
CORE_SYSTEMS = ("ps", "allreduce")
# Registries name every system by design.
REGISTRIES = {"agent/protocols/protocol_registry.cpp", "controller/training/strategies.cpp",
              "controller/runs/ps_run_policies.cpp",
              "controller/training/strategy_registry.cpp"}
STRATEGY_REGISTRY = "controller/training/strategy_registry.cpp"
# Strategy names that are also the name of something else compared in its own right: a
# consistency model (bsp, ssp, async), an agents' protocol (ps, gaia) or a placement rule
# (apsp). A comparison of a variable named for a strategy is caught whatever the name.
SHARED_NAMES = {"bsp", "ssp", "async", "ps", "gaia", "apsp"}


def strategy_comparison(root):
    """A regex matching a comparison with a strategy's name, from the registry's entries."""
    path = os.path.join(root, STRATEGY_REGISTRY)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        names = set(re.findall(r'\.name = "([^"]+)"', f.read())) - SHARED_NAMES
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    return re.compile(r'(strategy\w*(\(\))?\s*[!=]=\s*"|[!=]=\s*"(%s)")' % alternatives)

# Cores that systems plug into: no system's name in their code or strings (comments may
# say whom they serve). A system's name is the name of a system folder under
# SYSTEM_PARENTS or of a strategy in the registry (less GENERIC_NAMES).
CORE_FOLDERS = ("agent/protocols/allreduce/", "agent/protocols/ps/", "controller/runs/ps/")
# Cores that still name systems (issue 76's count), each "folder": counted, not failed;
# the check fails on an entry here that no longer does, so the list only shrinks.
KNOWN_NAMING_CORES = set()
# Names that are no one system's: the consistency models, the parameter server, and "tree",
# also the binary-tree all-reduce's name (Tr-Sync's), a core algorithm. Gaia and APSP are
# systems, though their names are also a protocol's and a placement rule's.
GENERIC_NAMES = {"bsp", "ssp", "async", "ps", "tree"}


def system_folders(root):
    """The systems' folder names under SYSTEM_PARENTS, less the cores' and generic ones."""
    names = set()
    for parent in SYSTEM_PARENTS:
        d = os.path.join(root, parent)
        if os.path.isdir(d):
            names.update(n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n)))
    return names - set(CORE_SYSTEMS) - GENERIC_NAMES


def system_names(root):
    """A regex matching any system's name in code: a system folder's name or a strategy's
    (less the shared ones), in an identifier too (mlfabric_report_from, MlfabricReport);
    names under four letters (mst, bkt) only as whole words."""
    names = system_folders(root)
    path = os.path.join(root, STRATEGY_REGISTRY)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            names.update(set(re.findall(r'\.name = "([^"]+)"', f.read())) - GENERIC_NAMES)
    forms = set()
    for n in names:  # streaming_diloco, streaming-diloco, and StreamingDiloco's letters
        forms.update({n, n.replace("_", "-"), n.replace("-", "_"), re.sub("[-_]", "", n)})
    if not forms:
        return None
    long = [re.escape(n) for n in forms if len(n) >= 4]
    short = [re.escape(n) for n in forms if len(n) < 4]
    parts = sorted(long, key=len, reverse=True)
    if short:
        parts.append(r"(?<![A-Za-z0-9])(?:%s)(?![A-Za-z0-9])" % "|".join(short))
    return re.compile("(%s)" % "|".join(parts), re.IGNORECASE)


def code_of(line, in_block):
    """The line without its comments (strings kept), and whether a /* */ runs on."""
    out, i, n = [], 0, len(line)
    while i < n:
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append(line[i:j + 1])
            i = j + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


# Crossings between systems allowed for now, each "from-folder -> to-folder": none since
# the parameter server's variants became policies on both sides (issue 50, part 3; there
# were 7 edges, 13 includes). The check fails on a new one, and on an entry here that no
# longer occurs (so the list only shrinks).
KNOWN_CROSSINGS = set()

SOURCE_DIRS = ("controller", "agent", "netns")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources():
    for top in SOURCE_DIRS:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(d, f), ROOT)


def layer_of(path):
    """(side, layer, system) of a repository path: ('controller', 'training', 'gaia')."""
    parts = path.split("/")
    side = parts[0]
    layer = parts[1] if len(parts) > 2 else ""
    system = None
    for parent in SYSTEM_PARENTS:
        rest = path[len(parent):].split("/") if path.startswith(parent) else []
        if len(rest) > 1:
            system = SAME_SYSTEM.get(rest[0], rest[0])
    return side, layer, system


def rank(side, layer):
    return (CONTROLLER_RANKS if side == "controller" else AGENT_RANKS).get(layer)


def files_naming_systems():
    """{system folder: [files outside that system's folders and the registries whose code
    or strings name it]}, comments left out."""
    systems = system_folders(ROOT)
    pattern = {s: re.compile("(%s)" % "|".join(
        sorted({re.escape(s), re.escape(s.replace("_", "-")), re.escape(s.replace("_", ""))},
               key=len, reverse=True)), re.IGNORECASE) for s in systems}
    found = {s: [] for s in systems}
    for src in sources():
        if src in REGISTRIES:
            continue
        _, _, own = layer_of(src)
        with open(os.path.join(ROOT, src), encoding="utf-8") as f:
            lines = f.readlines()
        code, in_block = [], False
        for line in lines:
            if INCLUDE.match(line):
                continue
            c, in_block = code_of(line.rstrip("\n"), in_block)
            code.append(c)
        text = "\n".join(code)
        for s in systems:
            if own in (s, SAME_SYSTEM.get(s, s)) or own == s:
                continue
            # Streaming DiLoCo's name holds DiLoCo's: a file naming only the first is its.
            hits = [m for m in pattern[s].finditer(text)
                    if not (s == "diloco" and text[max(0, m.start() - 10):m.start()].lower()
                            .endswith(("streaming_", "streaming-", "streaming")))]
            if hits:
                found[s].append(src)
    return found


def main(argv):
    global ROOT
    if "--root" in argv:
        ROOT = os.path.abspath(argv[argv.index("--root") + 1])
    legacy = "--legacy" in argv
    by_name = {}
    for s in sources():
        by_name.setdefault(os.path.basename(s), []).append(s)
    problems, counts, crossings = [], {}, set()
    compares_name = strategy_comparison(ROOT)
    names_system = system_names(ROOT)
    naming_cores = set()

    def flag(rule, src, line_no, text):
        counts[rule] = counts.get(rule, 0) + 1
        problems.append(f"{src}:{line_no}: {rule}: {text}")

    for src in sources():
        s_side, s_layer, s_system = layer_of(src)
        if s_side != "netns" and rank(s_side, s_layer) is None:
            flag("unranked folder", src, 0, f"add '{s_layer}' to this script's ranks")
            continue
        with open(os.path.join(ROOT, src), encoding="utf-8") as f:
            lines = f.readlines()
        core = next((c for c in CORE_FOLDERS if src.startswith(c)), None)
        in_block = False
        for n, line in enumerate(lines, 1):
            if core and names_system:
                code, in_block = code_of(line.rstrip("\n"), in_block)
                found = names_system.search(code) if not INCLUDE.match(line) else None
                if found and core in KNOWN_NAMING_CORES:
                    naming_cores.add(core)
                    counts["a known core names a system"] = (
                        counts.get("a known core names a system", 0) + 1)
                elif found:
                    flag("a core names a system", src, n,
                         f"'{found.group(1)}' in {core}: take a hook the system supplies")
            if compares_name and src not in REGISTRIES and compares_name.search(line):
                flag("compares a strategy's name", src, n,
                     "ask its traits (controller/training/strategy_registry.h)")
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            if os.path.isfile(os.path.join(ROOT, inc)) and inc.split("/")[0] in SOURCE_DIRS:
                dst = inc
            elif legacy and os.path.basename(inc) in by_name:
                dst = by_name[os.path.basename(inc)][0]
            else:
                flag("not path-qualified", src, n, f'"{inc}": write it from the repository top')
                continue
            d_side, d_layer, d_system = layer_of(dst)
            if s_side == "netns" and d_side != "netns":
                flag("netns includes above it", src, n, dst)
            elif s_side == "agent" and d_side == "controller":
                flag("agent includes the controller", src, n, dst)
            elif s_side == d_side and s_side != "netns" and rank(s_side, s_layer) < rank(d_side, d_layer):
                flag("runs up a layer", src, n, f"{dst} ({d_layer} is above {s_layer})")
            elif (s_side == d_side and s_side != "netns" and s_layer != d_layer
                  and rank(s_side, s_layer) == rank(d_side, d_layer)):
                flag("includes a sibling", src, n, f"{dst} ({d_layer} is beside {s_layer})")
            if (s_system and d_system and s_system != d_system and d_system not in CORE_SYSTEMS
                    and src not in REGISTRIES):
                edge = f"{os.path.dirname(src)} -> {os.path.dirname(dst)}"
                crossings.add(edge)
                if edge in KNOWN_CROSSINGS:
                    counts["known crossing between systems"] = (
                        counts.get("known crossing between systems", 0) + 1)
                else:
                    flag("crosses between systems", src, n, f"{dst} ({s_system} -> {d_system})")
    for gone in sorted(KNOWN_CROSSINGS - crossings) if "--root" not in argv else []:
        flag("stale entry", "scripts/check-layers.py", 0, f"'{gone}' no longer occurs: remove it")
    for gone in sorted(KNOWN_NAMING_CORES - naming_cores) if "--root" not in argv else []:
        flag("stale entry", "scripts/check-layers.py", 0, f"'{gone}' names no system: remove it")
    for p in problems:
        print(p)
    if "--count" in argv or problems:
        for rule in sorted(counts):
            print(f"check-layers: {counts[rule]:4d}  {rule}")
    if "--systems" in argv:
        for system, files in sorted(files_naming_systems().items()):
            print(f"check-layers: {len(files):4d}  files name {system}: {' '.join(files)}")
    if problems:
        print(f"check-layers: {len(problems)} problems (docs/architecture.md#the-layers)")
        return 1
    print("check-layers: every include runs down a layer and stays within its system")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
