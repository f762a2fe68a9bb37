#!/usr/bin/env bash
# The layer check fails on each kind of bad include and passes a tree without one: a small
# tree per case in a temporary directory, checked with scripts/check-layers.py --root.
set -euo pipefail
check="$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-layers.py"
tmp=$(mktemp -d /tmp/tb-layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0

# tree NAME FILE=INCLUDE...: a tree whose FILE includes INCLUDE (both created).
tree() {
  local dir="$tmp/$1"
  shift
  mkdir -p "$dir"
  for pair in "$@"; do
    local file=${pair%%=*} inc=${pair#*=}
    mkdir -p "$dir/$(dirname "$file")" "$dir/$(dirname "$inc")"
    touch "$dir/$inc"
    echo "#include \"$inc\"" >> "$dir/$file"
  done
  echo "$dir"
}

expect() {  # expect pass|fail RULE-TEXT DIR
  local want=$1 text=$2 dir=$3 out status=0
  out=$(/usr/bin/python3 "$check" --root "$dir" 2>&1) || status=$?
  if [ "$want" = pass ] && [ $status -ne 0 ]; then
    echo "FAIL: $(basename "$dir") should pass: $out"; failures=$((failures + 1))
  elif [ "$want" = fail ] && { [ $status -eq 0 ] || ! grep -q "$text" <<<"$out"; }; then
    echo "FAIL: $(basename "$dir") should fail with '$text': $out"; failures=$((failures + 1))
  else
    echo "ok: $(basename "$dir"): ${want}${text:+ ($text)}"
  fi
}

expect pass "" "$(tree down controller/lab/plan.cpp=controller/topology/topology.h \
  controller/topology/topology.cpp=netns/ipv4.h controller/runs/ps/s.cpp=agent/protocols/ps/k.h)"
expect fail "runs up a layer" "$(tree up controller/topology/t.cpp=controller/lab/plan.h)"
expect fail "includes a sibling" "$(tree sibling controller/placement/p.cpp=controller/scenario/s.h)"
expect fail "netns includes above it" "$(tree netns netns/k.cpp=controller/lab/plan.h)"
expect fail "agent includes the controller" "$(tree agent agent/jobs/j.cpp=controller/lab/plan.h)"
expect fail "crosses between systems" \
  "$(tree systems controller/runs/gaia/g.cpp=controller/training/drps/d.h)"
expect pass "" "$(tree core agent/protocols/drps/w.cpp=agent/protocols/ps/ps_protocol.h)"
mkdir -p "$tmp/unqualified/controller/lab" && touch "$tmp/unqualified/controller/lab/plan.h"
echo '#include "plan.h"' > "$tmp/unqualified/controller/lab/planner.cpp"
expect fail "not path-qualified" "$tmp/unqualified"
expect fail "unranked folder" "$(tree unranked controller/newthing/n.cpp=netns/ipv4.h)"
# A core folder names no system in its code or strings; a comment may say whom it serves.
# The systems' names are their folders' (here gaia's and streaming_diloco's).
core_tree() {  # NAME LINE: the all-reduce core's file holding LINE, beside two systems
  local dir
  dir=$(tree "$1" agent/protocols/gaia/g.cpp=agent/protocols/ps/p.h \
    agent/protocols/streaming_diloco/s.cpp=agent/protocols/allreduce/a.h)
  echo "$2" >> "$dir/agent/protocols/allreduce/a.h"
  echo "$dir"
}
expect fail "a core names a system" "$(core_tree core-string 'const char* k = "gaia";')"
expect fail "a core names a system" "$(core_tree core-code 'int streaming_diloco_rounds = 0;')"
expect fail "a core names a system" "$(core_tree core-camel 'struct StreamingDilocoHook;')"
expect pass "" "$(core_tree core-comment '// Gaia and Streaming DiLoCo plug in here')"
expect pass "" "$(core_tree core-block '/* what gaia supplies */ int hooks = 0;')"
expect pass "" "$(core_tree core-generic 'const char* m = "bsp"; // a consistency model')"
[ $failures -eq 0 ]
