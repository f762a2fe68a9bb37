#!/usr/bin/python3
"""Checks that what README.md and docs/ show still works.

Every shell block marked runnable (```sh check) is run, in order, one script per page, as
root from the repository's top, with build/bin first on the PATH; a failing command fails
the check, naming its page and line. Every other shell block is checked without running
it, because its commands take minutes to hours (benchmarks, paper reproductions), and so
is every `testbed ...` written inline (the verbs' table, prose): each
`testbed VERB` must be a verb, each --option one that the verb's --help lists, and each
repository path (profiles/, bench/, scripts/, examples/, ...) must exist, in blocks and
written inline. Links between pages must lead to files that exist.

  scripts/docs-check.py               everything (root: runnable blocks build labs)
  scripts/docs-check.py --static      only what needs no root: arguments, paths, links

Labs that a page's blocks bring up and leave behind (a command failed half-way) are taken
down by `testbed down` afterwards; no other lab is touched.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTBED = os.path.join(ROOT, "build", "bin", "testbed")
SHELLS = {"sh", "bash", "shell", "console"}
REPO_DIRS = ("profiles/", "bench/", "scripts/", "examples/", "docs/", "dashboards/", "tests/",
             "controller/", "agent/", "netns/")
# A page's runnable blocks together: long enough for a lab's up, short runs and down on a
# loaded 2-core machine, short enough that a hang fails CI long before its limit.
PAGE_TIMEOUT_S = 900
LAB_DIR = os.environ.get("TESTBED_RUN_DIR", "/run/testbed")


def pages():
    out = [os.path.join(ROOT, "README.md")]
    for d in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if d.endswith(".md"):
            out.append(os.path.join(ROOT, "docs", d))
    for top in ("controller", "agent", "netns", "profiles", "dashboards", "tests", "bench",
                "examples", "scripts"):
        for base, _, files in os.walk(os.path.join(ROOT, top)):
            if "README.md" in files:
                out.append(os.path.join(base, "README.md"))
    return out


def blocks(path):
    """(info words, first line number, lines) of every fenced block of a page, and (line
    number, text) of every inline `testbed ...` outside them (the verbs' tables, prose)."""
    found, spans, inside, info, start, lines = [], [], False, [], 0, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                if inside:
                    found.append((info, start, lines))
                    inside = False
                else:
                    inside, info, start, lines = True, line[3:].split(), n + 1, []
            elif inside:
                lines.append(line.rstrip("\n"))
            else:
                for span in re.findall(r"`(testbed [^`]+)`", line):
                    spans.append((n, span.replace("\\|", "|")))
                for path in re.findall(r"`([a-z]+/[^`\s]*)`", line):
                    spans.append((n, "_path " + path))
    return found, spans


def commands(lines, first):
    """(line number, text) of each command: continuations joined, comments kept out."""
    out, text, at = [], "", 0
    for i, line in enumerate(lines):
        if not text:
            at = first + i
        text += line[:-1] + " " if line.endswith("\\") else line
        if line.endswith("\\"):
            continue
        if text.strip() and not text.strip().startswith("#"):
            out.append((at, text.strip()))
        text = ""
    return out


class Verbs:
    """What `testbed` says of its verbs, asked once each."""

    def __init__(self):
        usage = subprocess.run([TESTBED, "--help"], capture_output=True, text=True).stdout
        self.names = set(re.findall(r"^  testbed (\S+)", usage, re.M))
        self.helps = {}

    def options(self, verb):
        if verb not in self.helps:
            r = subprocess.run([TESTBED, verb, "--help"], capture_output=True, text=True)
            self.helps[verb] = set(re.findall(r"--[a-z][a-z0-9-]*", r.stdout + r.stderr))
        return self.helps[verb]


def check_simple(words, verbs):
    """What is wrong with one simple command, without running it."""
    problems = []
    while words and (words[0] == "sudo" or re.match(r"^[A-Z_][A-Z0-9_]*=", words[0])):
        words = words[1:]
    if not words:
        return problems
    prog = words[0]
    if prog in ("python3", "bash", "sh", "/usr/bin/python3") and len(words) > 1:
        words = words[1:]
        prog = words[0]
    if prog in ("testbed", "build/bin/testbed"):
        verb = words[1] if len(words) > 1 else ""
        # --help, a placeholder (`testbed VERB`), or a hidden verb the testbed runs itself.
        if verb in ("--help", "-h", "help") or verb.isupper() or verb.startswith("_"):
            return problems
        if verb not in verbs.names:
            return ["'testbed " + verb + "' is not a verb"]
        known = verbs.options(verb)
        for w in words[2:]:
            if w == "--":
                break
            name = w.split("=", 1)[0]
            if name.startswith("--") and name not in known:
                problems.append("testbed " + verb + " has no option " + name)
    elif prog.startswith(REPO_DIRS) and not os.path.exists(os.path.join(ROOT, prog)):
        problems.append(prog + " does not exist")
    for w in words[1:]:
        path = w.split("=", 1)[-1]
        # Upper case marks a placeholder (profiles/scenarios/mlfabric/table2-cX-nY.yaml).
        if path.startswith(REPO_DIRS) and not re.search(r"[A-Z]|[{*]", path.replace("README", "")):
            if not os.path.exists(os.path.join(ROOT, path)):
                problems.append(path + " does not exist")
    return problems


def check_path(path):
    """A repository path written inline (`agent/store/pib_index.*`) must still be there."""
    path = path.rstrip(".,:;)")
    if path.startswith("bench/out/"):  # what a benchmark writes, not what the repository holds
        return []
    if not path.startswith(REPO_DIRS) or re.search(r"[A-Z{]", path.replace("README", "")):
        return []
    if glob.glob(os.path.join(ROOT, path)):
        return []
    return [path + " does not exist"]


def check_static(text, verbs):
    if text.startswith("_path "):
        return check_path(text[len("_path "):])
    try:
        words = shlex.split(text, comments=True)
    except ValueError as e:
        return ["cannot be read as a shell command: " + str(e)]
    problems, simple = [], []
    for w in words + [";"]:
        if w in (";", "&&", "||", "|", "&"):
            problems += check_simple(simple, verbs)
            simple = []
        else:
            simple.append(w)
    return problems


def labs():
    try:
        return {d for d in os.listdir(LAB_DIR) if os.path.exists(os.path.join(LAB_DIR, d, "state.json"))}
    except FileNotFoundError:
        return set()


def temp_outputs():
    """What the pages' commands may write for readers to look at: /tmp/tb-*, /tmp/tbt-*."""
    return {os.path.join("/tmp", n) for n in os.listdir("/tmp") if re.match(r"tbt?-", n)}


def run_page(page, cmds):
    """Runs a page's runnable commands in one shell; the first failure is returned."""
    rel = os.path.relpath(page, ROOT)
    # The pages describe a fresh Debian 12: `python3` is Debian's (with python3-torch),
    # ahead of any other interpreter this machine's PATH may prefer.
    script = ["set -eo pipefail", "sudo() { \"$@\"; }",
              "export PATH=" + shlex.quote(os.path.dirname(TESTBED)) + ":/usr/bin:$PATH"]
    for line, text in cmds:
        script.append("echo " + shlex.quote("$ " + text) + " >&2")
        script.append("echo " + str(line) + " > \"$TB_DOCS_LINE\"")
        script.append(text)
    before = labs()
    outputs_before = temp_outputs()
    with tempfile.NamedTemporaryFile("r") as line_file:
        env = dict(os.environ, TB_DOCS_LINE=line_file.name)
        try:
            r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env,
                               timeout=PAGE_TIMEOUT_S, stdout=subprocess.DEVNULL)
            failed = r.returncode != 0
            why = "exit status " + str(r.returncode)
        except subprocess.TimeoutExpired:
            failed, why = True, "still running after " + str(PAGE_TIMEOUT_S) + " s"
        line_file.seek(0)
        at = line_file.read().strip()
    for lab in sorted(labs() - before):  # left behind by a failure: ours, so taken down
        subprocess.run([TESTBED, "down", lab], capture_output=True)
    for path in sorted(temp_outputs() - outputs_before):  # written by this page's commands
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    if failed:
        return rel + ":" + at + ": " + why
    return None


def main():
    static_only = "--static" in sys.argv[1:]
    if not os.access(TESTBED, os.X_OK):
        sys.exit("docs check: build the testbed first (" + TESTBED + " is missing)")
    if not static_only and os.geteuid() != 0:
        sys.exit("docs check: runnable blocks build labs and need root (or use --static)")
    verbs, problems = Verbs(), []
    ran = checked = links = 0
    for page in pages():
        rel = os.path.relpath(page, ROOT)
        text = open(page).read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            links += 1
            if not os.path.exists(os.path.join(os.path.dirname(page), target.split("#")[0])):
                problems.append(rel + ": the link to " + target + " leads nowhere")
        runnable = []
        found, spans = blocks(page)
        for line, span in spans:
            for p in check_static(span, verbs):
                problems.append(rel + ":" + str(line) + ": " + p)
            checked += 1
        for info, first, lines in found:
            if not info or info[0] not in SHELLS:
                continue
            for line, cmd in commands(lines, first):
                for p in check_static(cmd, verbs):
                    problems.append(rel + ":" + str(line) + ": " + p)
                if "check" in info[1:]:
                    runnable.append((line, cmd))
                else:
                    checked += 1
        if runnable and not static_only:
            print("docs check: running " + str(len(runnable)) + " commands of " + rel,
                  file=sys.stderr, flush=True)
            failure = run_page(page, runnable)
            if failure:
                problems.append(failure)
            ran += len(runnable)
    for p in problems:
        print("docs check: " + p, file=sys.stderr)
    print("docs check: " + str(ran) + " commands run, " + str(checked) +
          " checked by their arguments and paths, " + str(links) + " links; " +
          (str(len(problems)) + " problem" + ("s" if len(problems) > 1 else "")
           if problems else "all good"), file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
