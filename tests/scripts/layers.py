#!/usr/bin/env python3
"""The shape of src/: layers, sizes, declarations.

    layers.py SRCDIR BUILDDIR

SRCDIR is the top of the source tree, BUILDDIR the top of a build tree
whose library is built (its objects are read with nm).  Checks:

  include   a file of src/<folder>/ includes "x.h" of its own folder, of
            a lower rank in src/LAYERS, or of include/; anything else
            (up, or sideways to a sibling on its rank) is reported with
            the file and line.
  symbol    every undefined symbol of an object of the library (and of
            the program) that another object defines resolves in the
            object's own folder or a lower rank: a local prototype does
            not get around the include rule.
  extern    no function is declared `extern` in a .c file.
  config    config.h is the first file every .c includes.
  cite      a document a comment cites is in the repository, named by its
            path from the top (docs/architecture.md); no section marks
            (a '§' points into documents outside it).
  loop      no files whose objects call each other in a circle (from the
            same symbols: a strongly connected set of more than one
            object), inside a folder or across.
  owner     state is written by its owner only: the options through
            test->cfg (test_config.h) in core/, options/, api/ and
            session/auth* (every other layer reads test->opt); the error
            state (run.err) in core/iperf_error.c; listeners in server/
            (a transport hands its listener over and never assigns the
            server's `listener` or `prot_listener`).
  static    a function of the library that no other object calls (the
            library's, the program's, the unit suites', the fuzz
            targets', the examples') is static, unless the installed
            iperf_api.h declares it: file-local functions are static,
            dead ones are gone.
  lines     no file over 800 lines.
  function  no function over 60 lines, from its opening brace to its
            closing one (the KNF braces at column 0).

What is known and not yet fixed is listed in tests/data/layers.todo, one
finding per line as this prints it (without line numbers).  A finding not
listed fails the test; so does a listed one that no longer occurs (the
list only shrinks).  Prints "N passed, N failed" (one check per rule).
"""
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 60


def read_layers(path):
    rank = {}
    n = 0
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        for folder in line:
            rank[folder] = n
        n += 1
    return rank


def sources(src, rank):
    """{basename: folder} of every .c and .h under src/<folder>/."""
    where = {}
    for folder in sorted(os.listdir(src)):
        d = os.path.join(src, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                if folder not in rank and folder != "include":
                    sys.exit(f"layers.py: src/{folder}/ is not in src/LAYERS")
                if f in where:
                    sys.exit(f"layers.py: {f} is in src/{where[f]}/ and src/{folder}/")
                where[f] = folder
    return where


def allowed(rank, mine, theirs):
    if theirs == "include" or theirs == mine:
        return True
    return mine != "include" and rank[theirs] < rank[mine]


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
EXTERN_FN = re.compile(r"^\s*extern\s+[^;=]*\(")
FN_OPEN = re.compile(r"^\{\s*$")
FN_CLOSE = re.compile(r"^\}")


def function_name(lines, i):
    """The name of the function whose body opens at lines[i]."""
    for j in range(i - 1, max(i - 6, -1), -1):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\(", lines[j])
        if m:
            return m.group(1)
    return f"line {i + 1}"


CITE = re.compile(r"[\w./-]+\.md\b")
CFG_USE = re.compile(r"\bcfg->")
CFG_OWNERS = ("core/", "options/", "api/", "session/auth")
ERR_WRITE = re.compile(r"run\.err(\.\w+)?\s*=[^=]|memset\(\s*&\w+->run\.err\b")
LISTENER_WRITE = re.compile(r"(->listener|prot_listener)\s*=[^=]")


def scan_text(src, where, rank, findings):
    top = os.path.dirname(os.path.abspath(src))
    for f, folder in sorted(where.items()):
        rel = f"src/{folder}/{f}"
        lines = open(os.path.join(src, folder, f), errors="replace").read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > MAX_FILE_LINES:
            findings.append(("lines", f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})", ""))
        start = None
        if f.endswith(".c"):
            first = next((l for l in lines if l.startswith("#include")), "")
            if first != '#include "config.h"':
                findings.append(("config", f"{rel}: the first include is not config.h", ""))
        for i, line in enumerate(lines):
            m = INCLUDE.match(line)
            if m and m.group(1) != "config.h":
                h = os.path.basename(m.group(1))
                hf = where.get(h)
                if hf is not None and not allowed(rank, folder, hf):
                    how = "sideways" if hf in rank and folder in rank and rank[hf] == rank[folder] else "up"
                    findings.append(("include", f"{rel} includes {h} of {hf}/ ({how})", f":{i + 1}"))
            for doc in CITE.findall(line):
                if not os.path.isfile(os.path.join(top, doc)):
                    findings.append(("cite", f"{rel} cites {doc}, not a file of the repository", f":{i + 1}"))
            if "\u00a7" in line:
                findings.append(("cite", f"{rel}: a section mark (\u00a7) citing a document outside the repository", f":{i + 1}"))
            owner_findings(rel, folder, f, line, i, findings)
            if f.endswith(".c") and EXTERN_FN.match(line):
                findings.append(("extern", f"{rel}: an extern function declaration", f":{i + 1}"))
            if FN_OPEN.match(line):
                start = i
            elif start is not None and FN_CLOSE.match(line):
                n = i - start + 1
                if n > MAX_FUNCTION_LINES:
                    findings.append(("function", f"{rel}: {function_name(lines, start)}() is {n} lines (at most {MAX_FUNCTION_LINES})", ""))
                start = None


def owner_findings(rel, folder, f, line, i, findings):
    code = line.split("/*")[0]
    here = f"{folder}/{f}"
    if CFG_USE.search(code) and not here.startswith(CFG_OWNERS):
        findings.append(("owner", f"{rel}: the options written outside their owners (test->cfg)", f":{i + 1}"))
    if ERR_WRITE.search(code) and here != "core/iperf_error.c":
        findings.append(("owner", f"{rel}: the error state written outside core/iperf_error.c", f":{i + 1}"))
    if LISTENER_WRITE.search(code) and folder != "server" and here != "session/run.c" and here != "core/test.c":
        findings.append(("owner", f"{rel}: a listener assigned outside server/", f":{i + 1}"))


def objects(build, where):
    """[(path, source basename)] of the built objects: the library's and
    the program's (PIC in .libs/ or not: one of each, nm reads them the
    same)."""
    out = {}
    for root, dirs, files in os.walk(os.path.join(build, "src")):
        for o in files:
            if not o.endswith(".o"):
                continue
            base = re.sub(r"^[A-Za-z0-9_]+_la-", "", o)[:-2] + ".c"
            if base.startswith("iperf3-"):
                base = base[len("iperf3-"):]
            if base in where:
                out.setdefault(base, os.path.join(root, o))  # PIC or not
    return [(path, base) for base, path in sorted(out.items())]


def scan_symbols(build, where, rank, findings):
    objs = objects(build, where)
    defined = {}
    undefined = {}
    for path, base in objs:
        nm = subprocess.run(["nm", path], capture_output=True, text=True)
        if nm.returncode != 0:
            sys.exit(f"layers.py: nm {path}: {nm.stderr.strip()}")
        for line in nm.stdout.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == "U":
                undefined.setdefault(base, set()).add(p[1])
            elif len(p) == 3 and p[1] in "TDBRGSV":
                defined.setdefault(p[2], base)
    static_findings(build, where, objs, defined, undefined, findings)
    calls = {b: set() for _, b in objs}
    for base, syms in sorted(undefined.items()):
        folder = where[base]
        for s in sorted(syms):
            d = defined.get(s)
            if d is None or d == base:
                continue
            calls[base].add(d)
            if not allowed(rank, folder, where[d]):
                findings.append(("symbol", f"src/{folder}/{base} calls {s} of src/{where[d]}/{d}", ""))
    for group in loops(calls):
        names = ", ".join(f"src/{where[b]}/{b}" for b in sorted(group))
        findings.append(("loop", f"{names} call each other", ""))
    return [b for _, b in objs]


def static_findings(build, where, objs, defined, undefined, findings):
    """Functions (nm "T") that only their own object uses."""
    used = set()
    for syms in undefined.values():
        used |= syms
    mine = {path for path, _ in objs}
    for sub in ("src", "tests", "fuzz", "examples"):
        for root, dirs, files in os.walk(os.path.join(build, sub)):
            for o in files:
                path = os.path.join(root, o)
                if not o.endswith(".o") or path in mine:
                    continue
                nm = subprocess.run(["nm", "-u", path], capture_output=True, text=True)
                used |= {l.split()[-1] for l in nm.stdout.splitlines() if l.strip()}
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    api = open(os.path.join(os.path.dirname(top), "src", "include", "iperf_api.h")).read()
    for path, base in objs:
        nm = subprocess.run(["nm", path], capture_output=True, text=True)
        for line in nm.stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] == "T" and p[2] not in used and p[2] != "main" \
                    and not re.search(r"\b" + re.escape(p[2]) + r"\s*\(", api):
                findings.append(("static", f"src/{where[base]}/{base}: {p[2]}() is called from no other object (static, or remove it)", ""))


def loops(graph):
    """The strongly connected sets of more than one node (Tarjan,
    without recursion)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(group)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: layers.py SRCDIR BUILDDIR")
    top, build = sys.argv[1], sys.argv[2]
    src = os.path.join(top, "src")
    rank = read_layers(os.path.join(src, "LAYERS"))
    where = sources(src, rank)
    findings = []
    scan_text(src, where, rank, findings)
    built = scan_symbols(build, where, rank, findings)
    if not built:
        print("SKIP: no objects in the build tree (build the library first)")
        return 77
    todo_path = os.path.join(top, "tests", "data", "layers.todo")
    todo = set()
    for line in open(todo_path):
        line = line.rstrip("\n")
        if line and not line.startswith("#"):
            todo.add(line)
    found = {f"{kind}: {what}" for kind, what, _ in findings}
    failed = {}
    for kind, what, at in findings:
        key = f"{kind}: {what}"
        if key not in todo:
            failed.setdefault(kind, []).append(f"{key}{at}")
    for key in sorted(todo - found):
        kind, what = key.split(": ", 1)
        # a call of an object this build left out is neither here nor gone
        m = re.match(r"src/\S+/(\S+\.c) calls ", what)
        if kind == "symbol" and m and m.group(1) not in built:
            continue
        failed.setdefault(kind, []).append(f"{key} (listed in tests/data/layers.todo, no longer found: remove it)")
    passed = 0
    for kind in ("include", "symbol", "loop", "extern", "config", "cite", "owner", "static", "lines", "function"):
        known = sum(1 for k, _, _ in findings if k == kind)
        if kind in failed:
            for msg in failed[kind]:
                print(f"  {msg}")
            print(f"FAIL: {kind}: {len(failed[kind])} finding(s) not in tests/data/layers.todo or stale")
        else:
            passed += 1
            print(f"PASS: {kind} ({known} known in tests/data/layers.todo)")
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
