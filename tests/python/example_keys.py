"""Checks that config/example.toml lists every key of the README's configuration table.

The table's source is docs/man/config-keys.tsv (table, key or "a / b" alternatives, default, meaning). A key
counts as listed when `KEY =` is written (commented out or not) under its table in the example: under
`[sources.eb]` for `[sources.NAME]`, inside `filter = { ... }` for `[feeds.NAME] filter`, in a trailing
comment for an alternative ("(or: token = ...)"). The reverse holds too: a key the example sets at the start
of a line must be a key of the table.
    example_keys.py SOURCE_DIR [EXAMPLE]
Prints each key the example lacks (with the table, the tsv line and what to add) and each unknown one;
exit 1 on any.
"""
import re
import sys

NAMED = re.compile(r"^(sources|feeds|targets)\.[^.\]]+$")


def table_of(header):
    """`sources.eb` -> `[sources.NAME]`, `connect` -> `[connect]`."""
    m = NAMED.match(header)
    return f"[{m.group(1)}.NAME]" if m else f"[{header}]"


def tsv_keys(path):
    """[(table, key, line number)] of the tsv, one entry per alternative."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            table = cols[0].replace("`", "")
            for key in cols[1].replace("`", "").split(" / "):
                out.append((table, key.strip(), n))
    return out


def example_keys(path):
    """{(table, key)} written in the example, and [(table, key, line)] set at the start of a line."""
    seen, leading = set(), []
    table = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            body = text.lstrip("#").strip()
            header = re.match(r"^\[([A-Za-z0-9_.-]+)\]\s*(#.*)?$", body)
            if header:
                table = table_of(header.group(1))
                continue
            if table is None:
                continue
            first = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=", body)
            if first:
                leading.append((table, first.group(1), n))
                inline = re.search(r"=\s*\{([^}]*)\}", body)
                if inline:
                    for key in re.findall(r"\"?([A-Za-z_][A-Za-z0-9_.]*)\"?\s*=", inline.group(1)):
                        seen.add((f"{table} {first.group(1)}", key))
            for key in re.findall(r"(?<![A-Za-z0-9_.\"])([A-Za-z_][A-Za-z0-9_]*)\s*=", body):
                seen.add((table, key))
    return seen, leading


def main(src, example=None):
    example = example or f"{src}/config/example.toml"
    tsv = f"{src}/docs/man/config-keys.tsv"
    wanted = tsv_keys(tsv)
    seen, leading = example_keys(example)
    problems = []
    for table, key, n in wanted:
        if (table, key) not in seen:
            problems.append(
                f"{example}: lacks `{key}` of {table} (docs/man/config-keys.tsv:{n}): add a line "
                f"`{key} = ...  # default; what it does` under that table (commented out if optional)"
            )
    known = {(t, k) for t, k, _ in wanted}
    inline_tables = {t for t, _, _ in wanted if " " in t}
    for table, key, n in leading:
        if (table, key) not in known and f"{table} {key}" not in inline_tables:
            problems.append(f"{example}:{n}: `{key}` is not a key of {table} in docs/man/config-keys.tsv")
    for p in problems:
        print(p)
    print(f"example_keys: {len(wanted)} keys of the README's table, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
