"""Checks that #includes flow one way through the layers of the README's architecture section.

Every file under src/ and include/icsbridge/ belongs to a layer (its src/ folder, or for a public header and
the files directly in src/ the table below); a file may include only headers of its own layer or a lower
one. The rooms of one row are siblings: none of them includes another (each may use the rows below). No
files include each other, in a pair or a longer cycle (a unit is a .cpp with its .hpp). A header of the
library's face (include/icsbridge/) includes no header of src/ and no libical, libpq, libxml2, toml++,
OpenSSL or Beast header.
And the README's picture (its Architecture section, when SOURCE_DIR has a README.md) draws these rows, and
its layout table has a row for every folder of src/.
    include_layers.py SOURCE_DIR
Prints every include that goes up or sideways, every cycle, a folder or public header that has no layer, and
where the README's picture differs; exit 1 on any.
"""
import os
import re
import sys

# The README's picture, lowest first: a chain, and one row of rooms that stand side by side.
ORDER = [
    ["base"], ["config"], ["net"], ["model"], ["sources"], ["ical"], ["pipeline"], ["store"], ["publish"],
    ["views"], ["refresh", "merge", "oauth", "webpush"], ["push"], ["dav"], ["server"], ["connect"],
    ["cluster"], ["app"], ["cli"],
]
LEVEL = {name: i for i, row in enumerate(ORDER) for name in row}
# Folders that are part of a layer rather than one of their own.
PART_OF = {"util": "base"}
# include/icsbridge/NAME.hpp: the layer whose interface it is.
PUBLIC = {
    "error": "base", "log": "base", "files": "base", "duration": "base", "digest": "base",
    "push_status": "base", "persistence": "base", "body_stream": "base", "config": "config", "net": "net",
    "model": "model", "sources": "sources",
    "ical": "ical", "pipeline": "pipeline", "feed_groups": "pipeline", "store": "store",
    "revoked_tokens": "store", "publish": "publish", "merge": "merge", "refresh": "refresh",
    "server": "server", "dav": "dav", "webpush": "webpush",
}


# What the library's face (include/icsbridge/) keeps out: src/'s own headers, and the C libraries and Beast.
FACE_KEEPS_OUT = ("libical/", "libpq", "libxml/", "toml++/", "openssl/", "boost/beast")


def layer_of(root, path, problems):
    parts = os.path.relpath(path, root).split(os.sep)
    if parts[0] == "include":
        name = os.path.splitext(parts[-1])[0]
        if name not in PUBLIC:
            problems.append(f"include/icsbridge/{parts[-1]}: no layer (add it to PUBLIC in {__file__})")
        return PUBLIC.get(name, "base")
    if len(parts) == 2:
        return "cli" if parts[1] == "main.cpp" else "base"
    folder = PART_OF.get(parts[1], parts[1])
    if folder not in LEVEL:
        problems.append(f"src/{parts[1]}/: no layer (add it to ORDER in {__file__} and to the README)")
        return "base"
    return folder


def unit_of(root, path):
    """src/net/retry.cpp and src/net/retry.hpp are one unit; a public header is its own."""
    return os.path.splitext(os.path.relpath(path, root))[0]


def cycles(graph):
    """The strongly connected components of more than one unit (Tarjan, without recursion)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, edges = work[-1]
            pushed = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    pushed = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def readme_problems(root):
    """Where the README's picture of the layers, or its layout table, differs from ORDER and src/."""
    path = os.path.join(root, "README.md")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = text[text.find("### Architecture"):]
    block = re.search(r"```\n(base .*?)```", section, re.S)
    if not block:
        return ["README.md: no picture of the layers under ### Architecture"]
    drawn = []
    for line in block.group(1).splitlines():
        line = re.sub(r"\(.*?\)", "", line)  # what a layer holds, said in parentheses
        for step in line.strip().lstrip("→").split("→"):
            if step.strip():
                drawn.append(sorted(name.strip() for name in step.split("|")))
    problems = []
    if drawn != [sorted(row) for row in ORDER]:
        problems.append(f"README.md: the picture draws {drawn}, the check knows {ORDER}")
    rooms = {n for n in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", n))}
    for room in sorted(rooms - set(PART_OF)):
        if f"| `{room}/` |" not in section:
            problems.append(f"README.md: the layout table has no row for src/{room}/")
    return problems


def main(root):
    problems = readme_problems(root)
    graph = {}
    for top in ("src", "include"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(folder, name)
                mine = layer_of(root, path, problems)
                unit = unit_of(root, path)
                graph.setdefault(unit, set())
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                if top == "include":
                    for include in re.findall(r'^#include ([<"][^">]+)[">]', text, re.M):
                        if include.startswith('"') or include[1:].startswith(FACE_KEEPS_OUT):
                            problems.append(f"{os.path.relpath(path, root)} (the face) includes {include[1:]}")
                for include in re.findall(r'^#include ["<]([^">]+)[">]', text, re.M):
                    base = "include" if include.startswith("icsbridge/") else "src"
                    target = os.path.join(root, base, include)
                    if not os.path.exists(target):
                        continue  # a system or library header
                    if unit_of(root, target) != unit:
                        graph[unit].add(unit_of(root, target))
                    theirs = layer_of(root, target, problems)
                    if LEVEL[theirs] > LEVEL[mine]:
                        problems.append(f"{os.path.relpath(path, root)} ({mine}) includes {include} ({theirs})")
                    elif LEVEL[theirs] == LEVEL[mine] and theirs != mine:
                        problems.append(
                            f"{os.path.relpath(path, root)} ({mine}) includes {include} ({theirs}, a sibling)"
                        )
    for cycle in cycles(graph):
        problems.append("these include each other: " + " -> ".join(cycle))
    for p in sorted(set(problems)):
        print(p)
    print(f"include_layers: {len(set(problems))} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
