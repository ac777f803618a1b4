#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that wscript-compat/ lists exactly what the CMake build lists.

Users of waf-based ns-3 trees (<= 3.35) build the module with
wscript-compat/wscript (copied to the module root) and
wscript-compat/examples-wscript (copied to examples/wscript). Both must name
the same files as the CMake build:

  CMakeLists.txt           build_lib(SOURCE_FILES / HEADER_FILES / TEST_SOURCES /
                           LIBRARIES_TO_LINK)
  examples/CMakeLists.txt  build_lib_example(NAME / SOURCE_FILES / LIBRARIES_TO_LINK)

  wscript                  create_ns3_module(...).source, ns3header .source,
                           create_ns3_module_test_library(...).source
  examples-wscript         create_ns3_program(name, deps).source

Every ns-3 module a CMake target links must also be a dependency of the
matching waf target (waf may list more, e.g. 'applications').

Exit status: 0 when they agree, 1 with a list of differences otherwise, 2 when
a file cannot be read or understood. With --write, both wscripts are
regenerated from the CMake lists instead.

Only the Python standard library is used.
"""

import argparse
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "rocev2"
# Dependencies the waf module always declares, whatever CMakeLists.txt links.
WAF_MODULE_DEPS = ["core", "network", "internet", "traffic-control", "applications"]


class CheckError(Exception):
    """A file that cannot be read or parsed."""


# ----------------------------------------------------------------------------
# CMake side


def cmake_tokens(text):
    """Tokens of a CMake file: words, quoted strings, '(' and ')'; comments removed."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            if text.startswith("#[[", i) or text.startswith("#[=", i):
                m = re.compile(r"#\[(=*)\[").match(text, i)
                end = text.find("]" + m.group(1) + "]", m.end())
                i = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = text.find("\n", i)
                i = n if end < 0 else end
        elif c in "()":
            tokens.append(c)
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            tokens.append(text[i + 1 : j])
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '()#"':
                j += 1
            tokens.append(text[i:j])
            i = j
    return tokens


def cmake_calls(text):
    """(command name, [arguments]) for every command call, nested parentheses kept flat."""
    tokens = cmake_tokens(text)
    calls = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i + 1] == "(" and tokens[i] not in "()":
            name = tokens[i].lower()
            depth, j, args = 1, i + 2, []
            while j < len(tokens) and depth:
                t = tokens[j]
                if t == "(":
                    depth += 1
                elif t == ")":
                    depth -= 1
                if depth and t not in "()":
                    args.append(t)
                j += 1
            calls.append((name, args))
            i = j
        else:
            i += 1
    return calls


def keyword_lists(args, keywords, path, what):
    """Split a call's arguments into {KEYWORD: [values]}."""
    lists = {k: [] for k in keywords}
    current = None
    for a in args:
        if a in keywords:
            current = a
        elif current is None:
            raise CheckError(f"{path}: {what}: unexpected argument '{a}' before any keyword")
        else:
            lists[current].append(a)
    return lists


def expand(values, variables, path, what):
    """Expand ${VAR} from simple top-level set() calls; ${libX} stays as is."""
    out = []
    for v in values:
        m = re.fullmatch(r"\$\{([A-Za-z0-9_-]+)\}", v)
        if m and not m.group(1).startswith("lib"):
            if m.group(1) not in variables:
                raise CheckError(f"{path}: {what}: cannot resolve ${{{m.group(1)}}}")
            out += variables[m.group(1)]
        elif "${" in v:
            if not re.fullmatch(r"\$\{lib[A-Za-z0-9_-]+\}", v):
                raise CheckError(f"{path}: {what}: cannot resolve '{v}'")
            out.append(v)
        else:
            out.append(v)
    return out


def lib_names(values, path, what):
    """${libcore} -> core. Anything else in LIBRARIES_TO_LINK is not an ns-3 module."""
    names = []
    for v in values:
        m = re.fullmatch(r"\$\{lib([A-Za-z0-9_-]+)\}", v)
        if not m:
            raise CheckError(f"{path}: {what}: LIBRARIES_TO_LINK entry '{v}' is not ${{libNAME}}")
        names.append(m.group(1))
    return names


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise CheckError(f"cannot read {path}: {e.strerror}")


def parse_cmake_module(root):
    path = os.path.join(root, "CMakeLists.txt")
    calls = cmake_calls(read(path))
    variables = {}
    for name, args in calls:
        if name == "set" and args:
            variables[args[0]] = args[1:]
    libs = [args for name, args in calls if name == "build_lib"]
    if len(libs) != 1:
        raise CheckError(f"{path}: expected exactly one build_lib() call, found {len(libs)}")
    keys = ["LIBNAME", "SOURCE_FILES", "HEADER_FILES", "LIBRARIES_TO_LINK", "TEST_SOURCES"]
    lists = keyword_lists(libs[0], keys, path, "build_lib")
    lists = {k: expand(v, variables, path, f"build_lib {k}") for k, v in lists.items()}
    if lists["LIBNAME"] != [MODULE]:
        raise CheckError(f"{path}: build_lib LIBNAME is {lists['LIBNAME']}, expected {MODULE}")
    return {
        "source": lists["SOURCE_FILES"],
        "headers": lists["HEADER_FILES"],
        "test": lists["TEST_SOURCES"],
        "deps": lib_names(lists["LIBRARIES_TO_LINK"], path, "build_lib"),
    }


def parse_cmake_examples(root):
    """{name: {"source": [...], "deps": [...]}} from examples/CMakeLists.txt (may be absent)."""
    path = os.path.join(root, "examples", "CMakeLists.txt")
    if not os.path.exists(path):
        return {}
    examples = {}
    keys = ["NAME", "SOURCE_FILES", "HEADER_FILES", "LIBRARIES_TO_LINK"]
    for name, args in cmake_calls(read(path)):
        if name != "build_lib_example":
            continue
        lists = keyword_lists(args, keys, path, "build_lib_example")
        if len(lists["NAME"]) != 1:
            raise CheckError(f"{path}: build_lib_example needs exactly one NAME: {args}")
        ex = lists["NAME"][0]
        what = f"build_lib_example {ex}"
        examples[ex] = {
            "source": expand(lists["SOURCE_FILES"], {}, path, what),
            "deps": lib_names(expand(lists["LIBRARIES_TO_LINK"], {}, path, what), path, what),
        }
    return examples


# ----------------------------------------------------------------------------
# waf side


def literal(node, path):
    try:
        value = ast.literal_eval(node)
    except ValueError:
        raise CheckError(f"{path}:{node.lineno}: expected a literal string or list")
    return [value] if isinstance(value, str) else list(value)


def walk_statements(body):
    """Statements in source order, descending into if/for/with/def bodies."""
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from walk_statements(getattr(stmt, field, []) or [])


def call_name(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def parse_wscript_file(path):
    """Targets of a wscript: list of dicts {kind, name, deps, source, module, line}."""
    text = read(path)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        raise CheckError(f"{path}:{e.lineno}: Python syntax error: {e.msg}")
    targets, by_var = [], {}
    for stmt in walk_statements(tree.body):
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name):
            kind = call_name(value)
            if kind in ("create_ns3_module", "create_ns3_module_test_library",
                        "create_ns3_program"):
                args = [literal(a, path) for a in value.args]
                t = {"kind": kind, "name": args[0][0] if args else None,
                     "deps": args[1] if len(args) > 1 else [], "source": None,
                     "line": stmt.lineno}
            elif kind == "bld" and any(
                k.arg == "features" and literal(k.value, path) == ["ns3header"]
                for k in value.keywords
            ):
                t = {"kind": "ns3header", "name": None, "deps": [], "source": None,
                     "line": stmt.lineno}
            else:
                continue
            targets.append(t)
            by_var[target.id] = t
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and target.value.id in by_var and target.attr in ("source", "module")):
            by_var[target.value.id][target.attr] = literal(stmt.value, path)
    return targets


def parse_waf_module(path):
    targets = parse_wscript_file(path)

    def one(kind):
        found = [t for t in targets if t["kind"] == kind]
        if len(found) != 1:
            raise CheckError(f"{path}: expected one {kind} target, found {len(found)}")
        return found[0]

    module, test, headers = (one("create_ns3_module"),
                             one("create_ns3_module_test_library"), one("ns3header"))
    for t, expected in ((module, MODULE), (test, MODULE)):
        if t["name"] != expected:
            raise CheckError(f"{path}:{t['line']}: {t['kind']} names '{t['name']}', "
                             f"expected '{expected}'")
    if headers.get("module") != [MODULE]:
        raise CheckError(f"{path}:{headers['line']}: ns3header .module must be '{MODULE}'")
    return {
        "source": module["source"] or [],
        "headers": headers["source"] or [],
        "test": test["source"] or [],
        "deps": module["deps"],
    }


def parse_waf_examples(path):
    examples = {}
    for t in parse_wscript_file(path):
        if t["kind"] != "create_ns3_program":
            continue
        if t["name"] in examples:
            raise CheckError(f"{path}:{t['line']}: program '{t['name']}' defined twice")
        examples[t["name"]] = {"source": t["source"] or [], "deps": t["deps"]}
    return examples


# ----------------------------------------------------------------------------
# comparison


def compare_lists(what, cmake_list, waf_list, cmake_file, waf_file, problems):
    for dup in sorted({x for x in cmake_list if cmake_list.count(x) > 1}):
        problems.append(f"{what}: '{dup}' listed twice in {cmake_file}")
    for dup in sorted({x for x in waf_list if waf_list.count(x) > 1}):
        problems.append(f"{what}: '{dup}' listed twice in {waf_file}")
    missing = [x for x in cmake_list if x not in waf_list]
    extra = [x for x in waf_list if x not in cmake_list]
    for x in missing:
        problems.append(f"{what}: + '{x}'  is in {cmake_file} but not in {waf_file}")
    for x in extra:
        problems.append(f"{what}: - '{x}'  is in {waf_file} but not in {cmake_file}")


def compare_deps(what, cmake_deps, waf_deps, cmake_file, waf_file, problems):
    for d in cmake_deps:
        if d not in waf_deps:
            problems.append(f"{what}: dependency '{d}' is linked in {cmake_file} but missing "
                            f"from {waf_file}")


def check(root):
    cm_file, ce_file = "CMakeLists.txt", "examples/CMakeLists.txt"
    wm_file, we_file = "wscript-compat/wscript", "wscript-compat/examples-wscript"
    cm = parse_cmake_module(root)
    ce = parse_cmake_examples(root)
    wm = parse_waf_module(os.path.join(root, wm_file))
    we = parse_waf_examples(os.path.join(root, we_file))

    problems = []
    compare_lists("module sources", cm["source"], wm["source"], cm_file, wm_file, problems)
    compare_lists("headers", cm["headers"], wm["headers"], cm_file, wm_file, problems)
    compare_lists("test sources", cm["test"], wm["test"], cm_file, wm_file, problems)
    compare_deps("module", cm["deps"], wm["deps"], cm_file, wm_file, problems)
    compare_lists("examples", list(ce), list(we), ce_file, we_file, problems)
    for name in ce:
        if name in we:
            compare_lists(f"example {name} sources", ce[name]["source"], we[name]["source"],
                          ce_file, we_file, problems)
            deps = [d for d in ce[name]["deps"] if d != MODULE]
            waf_deps = [d for d in we[name]["deps"] if d != MODULE]
            compare_deps(f"example {name}", deps, waf_deps, ce_file, we_file, problems)
            if MODULE not in we[name]["deps"]:
                problems.append(f"example {name}: '{MODULE}' missing from its dependencies "
                                f"in {we_file}")
    return problems, cm, ce


# ----------------------------------------------------------------------------
# generation (--write)

HEADER = """\
# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# SPDX-License-Identifier: GPL-2.0-only
#
{purpose}
#
# It lists the same files as {cmake}; utils/check-wscript.py
# checks that, and `python3 utils/check-wscript.py --write` regenerates this file.
"""


def py_list(items, indent):
    pad = " " * indent
    if not items:
        return "[]"
    return "[\n" + "".join(f"{pad}    '{x}',\n" for x in items) + f"{pad}]"


def render_module(cm):
    deps = WAF_MODULE_DEPS + [d for d in cm["deps"] if d not in WAF_MODULE_DEPS]
    purpose = (
        "# Build of the rocev2 module for waf-based ns-3 trees (ns-3.35 and older).\n"
        "# Copy it to the module root (contrib/rocev2/wscript): waf treats every\n"
        "# folder holding a file named wscript as a module. ns-3 <= 3.34 also needs\n"
        "#   ./waf configure --cxx-standard=-std=c++17 --enable-examples --enable-tests"
    )
    dep_list = ", ".join(f"'{d}'" for d in deps)
    return (
        HEADER.format(purpose=purpose, cmake="CMakeLists.txt")
        + "\n\n"
        + "def build(bld):\n"
        + f"    module = bld.create_ns3_module('{MODULE}', [{dep_list}])\n"
        + f"    module.source = {py_list(cm['source'], 4)}\n\n"
        + f"    module_test = bld.create_ns3_module_test_library('{MODULE}')\n"
        + f"    module_test.source = {py_list(cm['test'], 4)}\n\n"
        + "    headers = bld(features='ns3header')\n"
        + f"    headers.module = '{MODULE}'\n"
        + f"    headers.source = {py_list(cm['headers'], 4)}\n\n"
        + "    if bld.env.ENABLE_EXAMPLES:\n"
        + "        bld.recurse('examples')\n"
    )


def render_examples(ce):
    purpose = (
        "# Examples of the rocev2 module for waf-based ns-3 trees (ns-3.35 and older).\n"
        "# Copy it to examples/wscript of the module (contrib/rocev2/examples/wscript)."
    )
    blocks = []
    for name, ex in ce.items():
        deps = [MODULE] + [d for d in ex["deps"] if d != MODULE]
        dep_list = ", ".join(f"'{d}'" for d in deps)
        blocks.append(f"    obj = bld.create_ns3_program('{name}', [{dep_list}])\n"
                      f"    obj.source = {py_list(ex['source'], 4)}\n")
    body = "\n".join(blocks) if blocks else "    pass\n"
    return (HEADER.format(purpose=purpose, cmake="examples/CMakeLists.txt")
            + "\n\ndef build(bld):\n" + body)


def main(argv):
    p = argparse.ArgumentParser(
        prog="check-wscript.py",
        description="Check that wscript-compat/{wscript,examples-wscript} list exactly the "
        "sources, headers, test sources and examples that the CMake build lists.")
    p.add_argument("--root", default=ROOT, help="repository root (default: %(default)s)")
    p.add_argument("--write", action="store_true",
                   help="regenerate both wscripts from the CMake lists instead of checking")
    args = p.parse_args(argv)
    try:
        if args.write:
            cm, ce = parse_cmake_module(args.root), parse_cmake_examples(args.root)
            for rel, text in (("wscript-compat/wscript", render_module(cm)),
                              ("wscript-compat/examples-wscript", render_examples(ce))):
                with open(os.path.join(args.root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"wrote {rel}")
            return 0
        problems, cm, ce = check(args.root)
    except CheckError as e:
        print(f"check-wscript: error: {e}", file=sys.stderr)
        return 2
    if problems:
        print("check-wscript: wscript-compat/ is out of sync with the CMake build "
              f"({len(problems)} difference{'s' if len(problems) > 1 else ''}):",
              file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print("Fix: edit wscript-compat/, or regenerate it with "
              "`python3 utils/check-wscript.py --write`.", file=sys.stderr)
        return 1
    print(f"check-wscript: OK: {len(cm['source'])} sources, {len(cm['headers'])} headers, "
          f"{len(cm['test'])} test sources, {len(ce)} examples agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
