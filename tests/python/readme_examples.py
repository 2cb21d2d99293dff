"""Runs the command examples of the README and the man pages, as a newcomer would copy them (issue 40, item 2).

    readme_examples.py ICSBRIDGE FAKE_UPSTREAM SOURCE_DIR [--doc FILE]... [--list]

An example is a fenced block of the README in `sh`, `bash`, `shell` or `console` (a console block's commands
are its `$ ` lines), and a `.nf` ... `.fi` block under a man page's EXAMPLES heading that is not a TOML
config. Each one is either run here, or carries a visible note as the first line of text after it:

    Not run by the test suite: REASON.

(in a man page, a text line after the block's `.RE`). An unmarked block is run command by command, against
the fake upstream, and fails the test when a command exits non-zero, says something other than what its
command promises (`export` a calendar, `categories`/`tags` `id<TAB>name` lines, `check` `OK (...)`), prints
a secret, or uses a program this script does not run (anything but icsbridge and a few shell builtins:
`sudo`'s `systemctl`, `docker`, `apt`, `cmake`, an editor...). The substitutions, the documented rule:

- `config.toml` (and `/etc/icsbridge/config.toml`) is the README's own configuration, its first ```toml
  block with a `[server]` table, with each source's `base_url` replaced by the fake upstream's address and
  `[storage] dir` by a fresh directory;
- `VAR=...` (three dots as the value) is the fake upstream's secret for VAR (`EVENTS_TOKEN`,
  `JOBS_API_KEY`); `/etc/icsbridge/secrets.env` holds both as `NAME=value` lines;
- `sudo` is dropped (it is there for root-owned files, which are the test's own here), and absolute paths
  under /etc, /srv, /var, /run and /opt move under the test's directory (their folders made first);
- a command runs in that directory with only PATH (where `icsbridge` is the binary under test), HOME and
  LANG in its environment, so nothing it needs may come from the caller's.

--doc runs other documents instead (the self-test plants blocks in one); --list prints each example and
whether it is run or why not, without running anything.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SHELL_LANGS = {"sh", "bash", "shell", "console"}
MARKER = re.compile(r"^\s*[*_(]?Not run by the test suite: (.+?)\.?[*_)]?\s*$")
# Programs an example may run here; anything else makes its block one to mark.
ALLOWED = {"icsbridge", "sh", "set", ".", "exec", "echo", "printf", "cat", "env", "true", "head", "grep", "test"}
SUBCOMMAND = re.compile(r"(?<![\w/.-])icsbridge\s+(serve|export|check|categories|tags|push|connect)\b")
SECRET_VARS = {"EVENTS_TOKEN": "readme-events-3f9a1c", "JOBS_API_KEY": "readme-jobs-8e2d44"}
MOVED_ROOTS = re.compile(r"(?<![\w.$/-])/(etc|srv|var|run|opt)/")


class Block:
    def __init__(self, doc, line, lang, text, marker):
        self.doc, self.line, self.lang, self.text, self.marker = doc, line, lang, text, marker

    def where(self):
        return f"{self.doc}:{self.line}"

    def commands(self):
        """The block's commands: continuation lines joined, comments and console output left out."""
        out, pending = [], ""
        for raw in self.text.split("\n"):
            if self.lang == "console":
                if not raw.startswith("$ ") and not pending:
                    continue
                raw = raw[2:] if raw.startswith("$ ") else raw
            line = pending + raw.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            if line and not line.startswith("#"):
                out.append(line)
        return out


def first_text_after(lines, i, skip):
    """The first line from i on that is not blank and not matched by skip (a regex), or ""."""
    while i < len(lines) and (not lines[i].strip() or re.match(skip, lines[i])):
        i += 1
    return lines[i] if i < len(lines) else ""


def markdown_blocks(path, name):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang, start = m.group(1), m.group(2), m.group(3), i
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            i += 1
        body = "\n".join(l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[start + 1:i])
        i += 1
        marker = MARKER.match(first_text_after(lines, i, r"^$"))
        blocks.append(Block(name, start + 1, lang, body, marker.group(1) if marker else None))
    return blocks


def roff_text(line):
    for esc, plain in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\~", " "), ("\\e", "\\")):
        line = line.replace(esc, plain)
    return re.sub(r"\\f[BIRP]", "", line)


def man_blocks(path, name):
    """.nf blocks under EXAMPLE(S): shell unless their first line is a TOML table."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, section, i = [], "", 0
    while i < len(lines):
        if lines[i].startswith(".SH "):
            section = lines[i][4:].strip().strip('"')
        if section.startswith("EXAMPLE") and lines[i].strip() == ".nf":
            start, body = i, []
            i += 1
            while i < len(lines) and lines[i].strip() != ".fi":
                body.append(roff_text(lines[i]))
                i += 1
            marker = MARKER.match(roff_text(first_text_after(lines, i + 1, r"^\.(RE|PP|P|LP|RS)\b")))
            lang = "toml" if body and body[0].startswith("[") else "sh"
            blocks.append(Block(name, start + 1, lang, "\n".join(body), marker.group(1) if marker else None))
        i += 1
    return blocks


def doc_blocks(path, src):
    name = os.path.relpath(path, src) if path.startswith(src) else path
    if re.search(r"\.[1-9](\.in)?$", path):
        return man_blocks(path, name)
    return markdown_blocks(path, name)


def readme_config(blocks):
    for b in blocks:
        if b.lang == "toml" and re.search(r"^\[server\]", b.text, re.M):
            return b
    return None


def substitute_config(text, upstream, state):
    """The README's config with the rule's substitutions: sources at the fake, storage in the test."""
    out, table = [], ""
    for line in text.split("\n"):
        m = re.match(r"^\[([^\]]+)\]", line)
        if m:
            table = m.group(1)
        if table.startswith("sources.") and re.match(r"^base_url\s*=", line):
            line = f'base_url = "{upstream}"'
        elif table == "storage" and re.match(r"^dir\s*=", line):
            line = f'dir = "{state}"'
        out.append(line)
    return "\n".join(out) + "\n"


def program_words(command):
    """The programs a command line runs: each simple command's first word after assignments and sudo,
    and inside `sh -c '...'` the same for its script."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    words, simple = [], []
    for tok in list(lexer) + [";"]:
        if tok and set(tok) <= set(";&|"):
            while simple and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", simple[0]) or simple[0] == "sudo"):
                simple.pop(0)
            if simple:
                words.append(simple[0])
                if simple[0] == "sh" and "-c" in simple[1:-1]:
                    words += program_words(simple[simple.index("-c") + 1])
            simple = []
        else:
            simple.append(tok)
    return words


def substitute_command(command, work):
    """The rule's substitutions on one command line; raises ValueError for a `VAR=...` it has no value for."""
    command = re.sub(r"(?<![\w-])sudo\s+", "", command)

    def secret(m):
        if m.group(1) not in SECRET_VARS:
            raise ValueError(f"no value for {m.group(1)}=... (the fake upstream has {', '.join(SECRET_VARS)})")
        return f"{m.group(1)}={SECRET_VARS[m.group(1)]}"

    command = re.sub(r"\b([A-Z_][A-Z0-9_]*)=\.\.\.(?=[\s';]|$)", secret, command)
    for m in MOVED_ROOTS.finditer(command):
        path = re.match(r"[^\s'\";&|]*", command[m.start():]).group(0)
        os.makedirs(os.path.dirname(work + path), exist_ok=True)
    return MOVED_ROOTS.sub(lambda m: f"{work}/{m.group(1)}/", command)


def promise_broken(command, stdout, work):
    """What the command's output lacks of what its command promises, or None."""
    m = SUBCOMMAND.search(command)
    sub = m.group(1) if m else None
    if sub == "export":
        out = re.search(r"--output[= ](\S+)", command)
        body = open(os.path.join(work, out.group(1)), encoding="utf-8").read() if out else stdout
        if not body.startswith("BEGIN:VCALENDAR") or not re.search(r"^BEGIN:V(EVENT|TODO)", body, re.M):
            return "export wrote no calendar with items"
    elif sub in ("categories", "tags"):
        rows = stdout.strip().split("\n")
        if not stdout.strip() or any(not re.match(r"^[^\t]+\t[^\t]+$", r) for r in rows):
            return f"{sub} printed no id<TAB>name lines: {stdout[:200]!r}"
    elif sub == "check" and not re.search(r"(^|: )OK \(\d+ sources?, \d+ feeds?\)", stdout, re.M):
        return f"check printed no OK line: {stdout[:200]!r}"
    return None


def run_command(command, ctx):
    """Runs one command line of an example; returns what went wrong, or None."""
    unknown = [w for w in program_words(command) if os.path.basename(w) not in ALLOWED]
    if unknown:
        return f"runs {unknown[0]}, which the suite does not run here: mark the block"
    try:
        line = substitute_command(command, ctx["work"])
    except ValueError as e:
        return str(e)
    try:
        p = subprocess.run(["bash", "-c", line], cwd=ctx["work"], env=ctx["env"], capture_output=True,
                           text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "did not finish within 60 s"
    said = p.stdout + p.stderr
    for secret in ctx["secrets"]:
        if secret in said:
            return "printed a secret"
    if p.returncode != 0:
        return f"exited {p.returncode}: {p.stderr.strip()[:300]}"
    try:
        return promise_broken(line, p.stdout, ctx["work"])
    except OSError as e:
        return f"its output cannot be read: {e}"


def setup(fake, binary, src, config, work):
    """The fake upstream (returns the process), the README's config as config.toml and in /etc/icsbridge/,
    secrets.env, and the environment commands run with."""
    proc = subprocess.Popen([fake, "--port", "0", "--data", os.path.join(src, "tests/fixtures/upstream"),
                             "--events-token", SECRET_VARS["EVENTS_TOKEN"],
                             "--jobs-api-key", SECRET_VARS["JOBS_API_KEY"]],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = proc.stdout.readline().strip()
    if not first.startswith("listening on http://127.0.0.1:"):
        proc.kill()
        sys.exit(f"the fake upstream did not start: {first!r}")
    upstream = first[len("listening on "):]
    text = substitute_config(config.text, upstream, os.path.join(work, "state"))
    os.makedirs(os.path.join(work, "etc/icsbridge"))
    os.makedirs(os.path.join(work, "bin"))
    os.symlink(os.path.abspath(binary), os.path.join(work, "bin/icsbridge"))
    for path in ("config.toml", "etc/icsbridge/config.toml"):
        with open(os.path.join(work, path), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(work, "etc/icsbridge/secrets.env"), "w", encoding="utf-8") as f:
        f.write("".join(f"{k}={v}\n" for k, v in SECRET_VARS.items()))
    os.chmod(os.path.join(work, "etc/icsbridge/secrets.env"), 0o600)
    feed_tokens = re.findall(r'"([^"]{8,})"', "\n".join(l for l in text.split("\n") if re.match(r"^tokens?\s*=", l)))
    env = {"PATH": f"{work}/bin:/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8"}
    return proc, {"work": work, "env": env, "secrets": list(SECRET_VARS.values()) + feed_tokens}


def examples(blocks):
    return [b for b in blocks if b.lang in SHELL_LANGS or (b.doc.endswith(".in") and b.lang == "sh")]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    binary, fake, src = args[:3]
    docs = [argv[i + 1] for i, a in enumerate(argv) if a == "--doc"]
    if not docs:
        docs = [os.path.join(src, "README.md")] + sorted(
            os.path.join(src, "docs/man", f) for f in os.listdir(os.path.join(src, "docs/man")) if f.endswith(".in"))
    blocks = [b for d in docs for b in doc_blocks(d, src)]
    config = readme_config(blocks)
    if config is None:
        sys.exit("no README configuration (a ```toml block with [server]) to run the examples with")
    if "--list" in argv:
        for b in examples(blocks):
            print(f"{b.where()}: " + (f"not run: {b.marker}" if b.marker else "run: " + " | ".join(b.commands())))
        return 0
    work = tempfile.mkdtemp(prefix="readme-examples-")
    proc, ctx = setup(fake, binary, src, config, work)
    failures = ran = 0
    try:
        for b in examples(blocks):
            if b.marker:
                print(f"{b.where()}: not run: {b.marker}")
                continue
            for command in b.commands() or ["(an empty block)"]:
                problem = run_command(command, ctx)
                ran += 1
                print(f"{b.where()}: {command}: " + (f"FAIL: {problem}" if problem else "ok"))
                failures += problem is not None
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{ran} commands run, {failures} failed")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
