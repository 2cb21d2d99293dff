"""Checks that #includes flow one way through the layers of the README's architecture section.

Every file under src/ and include/icsbridge/ belongs to a layer (its src/ folder, or for a public header and
the files directly in src/ the table below); a file may include only headers of its own layer or a lower
one. The layers of one row (refresh, merge, cluster, dav, server, push, oauth, connect, webpush) may use
each other.
    include_layers.py SOURCE_DIR
Prints every include that goes up, and a folder or public header that has no layer; exit 1 on any.
"""
import os
import re
import sys

# The README's picture, lowest first.
ORDER = [
    ["base"], ["config"], ["net"], ["model"], ["sources"], ["ical"], ["pipeline"], ["store"], ["publish"],
    ["views"], ["refresh", "merge", "cluster", "dav", "server", "push", "oauth", "connect", "webpush"], ["app"], ["cli"],
]
LEVEL = {name: i for i, row in enumerate(ORDER) for name in row}
LEVEL["util"] = LEVEL["base"]
# include/icsbridge/NAME.hpp: the layer whose interface it is.
PUBLIC = {
    "error": "base", "log": "base", "files": "base", "duration": "base", "digest": "base",
    "push_status": "base", "persistence": "base", "body_stream": "base", "config": "config", "net": "net",
    "model": "model", "sources": "sources",
    "ical": "ical", "pipeline": "pipeline", "feed_groups": "pipeline", "store": "store",
    "revoked_tokens": "store", "publish": "publish", "merge": "merge", "refresh": "refresh",
    "server": "server", "dav": "dav", "webpush": "webpush",
}


def layer_of(root, path, problems):
    parts = os.path.relpath(path, root).split(os.sep)
    if parts[0] == "include":
        name = os.path.splitext(parts[-1])[0]
        if name not in PUBLIC:
            problems.append(f"include/icsbridge/{parts[-1]}: no layer (add it to PUBLIC in {__file__})")
        return PUBLIC.get(name, "base")
    if len(parts) == 2:
        return "cli" if parts[1] == "main.cpp" else "base"
    if parts[1] not in LEVEL:
        problems.append(f"src/{parts[1]}/: no layer (add it to ORDER in {__file__} and to the README)")
        return "base"
    return parts[1]


def main(root):
    problems = []
    for top in ("src", "include"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(folder, name)
                mine = layer_of(root, path, problems)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for include in re.findall(r'^#include ["<]([^">]+)[">]', text, re.M):
                    base = "include" if include.startswith("icsbridge/") else "src"
                    target = os.path.join(root, base, include)
                    if not os.path.exists(target):
                        continue  # a system or library header
                    theirs = layer_of(root, target, problems)
                    if LEVEL[theirs] > LEVEL[mine]:
                        problems.append(f"{os.path.relpath(path, root)} ({mine}) includes {include} ({theirs})")
    for p in sorted(set(problems)):
        print(p)
    print(f"include_layers: {len(set(problems))} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
