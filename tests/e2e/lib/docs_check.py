#!/usr/bin/env python3
"""Checks that the user docs (README.md, DEVELOPERS.md, data/README.md, docs/*.md) name only things
that exist. Used by tests/e2e/docs.sh; prints one line per problem and exits 1 if there is any.

  docs_check.py SOURCE_DIR SECPE                  check links, paths, commands and options
  docs_check.py SOURCE_DIR SECPE --walkthrough    print the README's walk-through as a shell script
  docs_check.py SOURCE_DIR SECPE --reproduce      print docs/performance.md's reproduce block likewise

What is checked, in every file:
- links [text](target) that are not URLs: the file exists and, for #anchors, so does the heading
  (GitHub's slugs);
- repository paths in code (inline `code` and fenced blocks) that start with src/, jobs/, tests/,
  slurm/, analysis/ or docs/ (and data/README.md) exist; a path with * must match a file; paths
  with <placeholders> are skipped; out/ and data/ are what runs write, so they are not checked;
  a source path written from its folder under src/ (`compute/impl/exact_score.hpp`,
  `evolve/run_session`) names a file (with or without its extension) or a folder;
- docs/architecture.md's folder table names every folder of src/, two levels deep;
- `secpe COMMAND` in code: COMMAND (and a sub-command of bench or privacy) exists, and every
  --option after it on the same command line is listed by `secpe COMMAND --help`. Inline code that
  starts with a command name without `secpe` (`bench kernel --screen`) counts too. Arguments after
  slurm/secpe-run.sbatch CONFIG and jobs/quickstart.sh are secpe run options; options after
  `python3 analysis/X.py` must be in that script's --help;
- [section] keys of ini blocks are options of that section's command;
- any other --option in code belongs to some secpe command or to an outside tool listed below;
- every guide file (docs/*.md but method.md) opens with the question it answers, and README.md
  (at most 250 lines) links to it;
- commands run as written from the source tree after the quickstart: a bash block calls
  ./build/secpe, not a bare secpe (unless it loads the module first); every command of the README's
  headline figures is ./build/secpe (or a jobs/ script) and, if secpe, a line of
  docs/performance.md's reproduce block; every data/ file that the headline figures or
  docs/performance.md read is made by that block or by the quickstart (jobs/quickstart.ini).
"""
import glob
import os
import re
import subprocess
import sys

# Options of outside tools that the docs may name (mpirun, sbatch, ctest, cmake, gtest, servers).
OUTSIDE_OPTIONS = {
    "oversubscribe", "ntasks", "nodes", "ntasks-per-node", "gpus-per-node", "gpus-per-task", "array",
    "dependency", "parsable", "wrap", "signal", "requeue", "output", "time", "cpus-per-task",
    "open-mode", "job-name", "output-on-failure", "timeout", "install", "prefix", "build",
    "gtest_filter", "model-id", "port", "host", "batch", "export", "variant",
}
PATH_PREFIXES = ("src/", "jobs/", "tests/", "slurm/", "analysis/", "docs/")
# Scripts whose extra arguments go to `secpe run`.
RUN_PASSTHROUGH = re.compile(r"(?:slurm/secpe-run\.sbatch\s+\S+|jobs/quickstart\.sh)((?:\s+\S+)*)")
WALKTHROUGH_MARK = "<!-- docs-test: walkthrough"
REPRODUCE_MARK = "<!-- docs-test: reproduce"
# A secpe called by name alone, as a command (at a line's start, after a separator or mpirun's options).
BARE_SECPE = re.compile(r"(?:^|[;&|(]\s*|mpirun(?:\s+-\S+(?:\s+\d+)?)*\s+)secpe\s")
# Options whose value is a file a command reads.
INPUT_OPTIONS = ("data", "input", "search-data", "kmeans-data", "secrets-file", "real", "eval-real")
README_MAX_LINES = 250
ALT = "\x01"  # stands for a table's escaped pipe (`a\\|b`) inside commands


class Checker:
    def __init__(self, src, secpe):
        self.src, self.secpe = src, secpe
        self.problems = []
        self.help_cache = {}
        self.commands, self.subcommands = self.parse_commands()

    # --- what secpe and the scripts know ---------------------------------------------------------
    def run_help(self, argv):
        key = tuple(argv)
        if key not in self.help_cache:
            try:
                p = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=self.src)
                self.help_cache[key] = (p.returncode, p.stdout + p.stderr)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.help_cache[key] = (1, str(e))
        return self.help_cache[key]

    def parse_commands(self):
        rc, text = self.run_help([self.secpe, "--help"])
        if rc != 0:
            sys.exit(f"docs_check: '{self.secpe} --help' failed: {text}")
        commands = set(re.findall(r"^  ([a-z][a-z-]+)\s", text, re.M))
        if "run" not in commands:
            sys.exit(f"docs_check: no commands found in secpe --help: {text}")
        # Sub-commands: `(privacy calibrate: ...)` in secpe --help; the benchmarks in secpe bench --help.
        subcommands = {}
        for command, sub in re.findall(r"\(([a-z-]+) ([a-z-]+):", text):
            subcommands.setdefault(command, []).append(sub)
        _, bench = self.run_help([self.secpe, "bench", "--help"])
        subcommands["bench"] = re.findall(r"^  ([a-z][a-z-]+)\s", bench.split("benchmarks:")[-1], re.M)
        return commands, subcommands

    def options_of(self, argv):
        """The --options a --help output lists (Boost: '  --name arg   text', '  -h [ --help ]')."""
        rc, text = self.run_help(argv + ["--help"])
        if rc != 0:
            return None
        return set(re.findall(r"^\s+(?:-\w \[ )?--([\w-]+)", text, re.M))

    def secpe_options(self, command):
        opts = self.options_of([self.secpe] + command.split())
        if opts is None:
            return None
        return opts | {"help", "config"}

    def all_secpe_options(self):
        if not hasattr(self, "_all"):
            self._all = {"version"}  # secpe --version
            for c in self.commands:
                self._all |= self.secpe_options(c) or set()
                for sub in self.subcommands.get(c, []):
                    self._all |= self.secpe_options(f"{c} {sub}") or set()
        return self._all

    # --- reporting ---------------------------------------------------------------------------------
    def problem(self, where, text):
        self.problems.append(f"{where}: {text}")

    # --- commands and options ----------------------------------------------------------------------
    def check_command_line(self, where, line):
        """Checks every secpe command on one logical line of code; returns the options it accounted for."""
        used = set()
        line = line.replace("\\|", ALT)  # a table's escaped pipe: alternatives, not a shell pipe
        line = re.sub(r"(?<=\w)\|(?=\w)", ALT, line)  # kernel|faiss: alternatives too
        starts = list(re.finditer(r"(?:^|(?<=[\s/\"'(\[`]))secpe\s+([a-z][\w-]*(?:" + ALT + r"[a-z][\w-]*)*)", line))
        for i, m in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(line)
            rest = re.split(r"\s(?:&&|\|\||;|\|)\s|\s[<>]", line[m.end():end])[0]
            used |= self.check_invocation(where, m.group(1), rest)
        for m in RUN_PASSTHROUGH.finditer(line):
            used |= self.check_invocation(where, "run", m.group(1))
        m = re.search(r"python3\s+(analysis/[\w.-]+\.py)((?:\s+\S+)*)", line)
        if m:
            known = self.options_of(["python3", os.path.join(self.src, m.group(1))])
            opts = set(re.findall(r"(?<![\w-])--([a-z][\w-]*)", m.group(2)))
            for o in sorted(opts - (known or set()) - {"help"}):
                self.problem(where, f"'--{o}' is not an option of {m.group(1)}")
            used |= opts
        return used

    def check_invocation(self, where, word, rest):
        alternatives = word.split(ALT)
        for a in alternatives:
            if a not in self.commands:
                self.problem(where, f"'secpe {a}' is not a secpe command")
                return set()
        command = alternatives[0]
        known = set()
        subs = self.subcommands.get(command)
        sub_m = re.match(r"\s+([a-z][\w-]*(?:" + ALT + r"[a-z][\w-]*)*)", rest) if subs else None
        if sub_m and not all(s in subs for s in sub_m.group(1).split(ALT)):
            sub_m = None
        if sub_m:
            for s in sub_m.group(1).split(ALT):
                known |= self.secpe_options(f"{command} {s}") or set()
        elif command == "bench" and re.match(r"\s+[a-z]", rest):
            self.problem(where, f"'secpe bench {rest.split()[0].replace(ALT, '|')}': not a benchmark ({', '.join(subs)})")
            return set()
        else:
            for a in alternatives:
                known |= self.secpe_options(a) or set()
        opts = set(re.findall(r"(?<![\w-])--([a-z][\w-]*)", rest))
        for o in sorted(opts - known):
            label = command + (" " + sub_m.group(1).replace(ALT, "|") if sub_m else "")
            self.problem(where, f"'--{o}' is not an option of 'secpe {label}' (secpe {label} --help)")
        return opts

    def check_bare_options(self, where, code, used):
        for o in sorted(set(re.findall(r"(?<![\w-])--([a-z][\w-]*)", code)) - used):
            if o not in self.all_secpe_options() and o not in OUTSIDE_OPTIONS:
                self.problem(where, f"'--{o}' is no option of any secpe command (nor a known outside tool's)")

    # --- paths -------------------------------------------------------------------------------------
    def check_paths(self, where, code):
        for m in re.finditer(r"(?<![\w./$-])((?:src|jobs|tests|slurm|analysis|docs)/[\w./*<>-]*|data/README\.md)", code):
            path = m.group(1).rstrip(".,:;")
            if "<" in path or ">" in path or "..." in path:
                continue
            full = os.path.join(self.src, path)
            if "*" in path:
                if not glob.glob(full):
                    self.problem(where, f"no file matches '{path}'")
            elif not os.path.exists(full):
                self.problem(where, f"'{path}' does not exist")
        # A source path written from its folder (`compute/impl/exact_score.hpp`, `evolve/run_session`):
        # a file, with or without its extension, or a folder under src/.
        tops = "|".join(sorted(e.name for e in os.scandir(os.path.join(self.src, "src")) if e.is_dir()))
        for m in re.finditer(rf"(?<![\w./$-])((?:{tops})/[\w./-]*\w)", code):
            base = os.path.join(self.src, "src", m.group(1))
            if not any(os.path.exists(base + ext) for ext in ("", ".hpp", ".cpp")):
                self.problem(where, f"'{m.group(1)}' is not a file or folder under src/")

    def check_folder_map(self):
        """docs/architecture.md's folder table names every folder of src/ (two levels deep)."""
        text = open(os.path.join(self.src, "docs", "architecture.md"), encoding="utf-8").read()
        rows = "\n".join(l for l in text.split("\n") if l.startswith("| `src/"))
        for top in sorted(os.scandir(os.path.join(self.src, "src")), key=lambda e: e.name):
            if not top.is_dir():
                continue
            for folder in [top] + [e for e in os.scandir(top.path) if e.is_dir()]:
                name = os.path.relpath(folder.path, self.src)
                if f"`{name}`" not in rows and f"`{name}/" not in rows:
                    self.problem("docs/architecture.md", f"the folder table does not name {name}")

    # --- ini blocks --------------------------------------------------------------------------------
    def check_ini(self, where, lines):
        section = None
        for line in lines:
            s = line.strip()
            if not s or s.startswith(("#", ";")):
                continue
            m = re.match(r"\[([\w-]+)\]$", s)
            if m:
                section = m.group(1)
                if section not in self.commands:
                    self.problem(where, f"ini section [{section}] is not a secpe command")
                    section = None
                continue
            key = s.split("=")[0].strip()
            known = self.secpe_options(section) if section else self.all_secpe_options()
            if key not in (known or set()):
                self.problem(where, f"ini key '{key}' is not an option of secpe {section or 'any command'}")

    # --- links and headings ------------------------------------------------------------------------
    def anchors(self, path):
        slugs, counts, fenced = set(), {}, False
        for line in open(path, encoding="utf-8"):
            if re.match(r"\s*(```|~~~)", line):
                fenced = not fenced
            if fenced:
                continue
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            slugs.add(slug if n == 0 else f"{slug}-{n}")
        return slugs

    def check_link(self, where, doc, target):
        if re.match(r"[a-z]+:", target):
            return
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            self.problem(where, f"link target '{target}' does not exist")
        elif anchor and (not full.endswith(".md") or anchor not in self.anchors(full)):
            self.problem(where, f"link '{target}': no heading '#{anchor}' in {os.path.relpath(full, self.src)}")

    # --- the guide's shape ------------------------------------------------------------------------
    def check_guide(self, docs):
        """Each guide file (docs/*.md but the method write-up) opens with a title and, under it, the
        question it answers ('> ...?'); the README links to every one of them."""
        readme = open(os.path.join(self.src, "README.md"), encoding="utf-8").read()
        if readme.count("\n") > README_MAX_LINES:
            self.problem("README.md", f"{readme.count(chr(10))} lines; the front page keeps to {README_MAX_LINES} (details go to docs/)")
        for doc in docs:
            rel = os.path.relpath(doc, self.src)
            if not rel.startswith("docs/") or rel == "docs/method.md":
                continue
            lines = open(doc, encoding="utf-8").read().split("\n")
            if not (lines[0].startswith("# ") and len(lines) > 2 and lines[2].startswith("> ") and lines[2].endswith("?")):
                self.problem(f"{rel}:1", "a guide file starts with '# Title', a blank line, then '> the question it answers?'")
            if f"]({rel})" not in readme:
                self.problem("README.md", f"the guide table does not link to {rel}")

    # --- one file ----------------------------------------------------------------------------------
    def check_file(self, doc):
        rel = os.path.relpath(doc, self.src)
        lines = open(doc, encoding="utf-8").read().split("\n")
        i, paragraph, first = 0, [], 0
        while i < len(lines):
            fence = re.match(r"\s*(```|~~~)\s*(\w*)", lines[i])
            if fence or not lines[i].strip():
                self.check_paragraph(rel, first, doc, paragraph)
                paragraph = []
            if fence:
                start, lang = i + 1, fence.group(2)
                i += 1
                while i < len(lines) and not lines[i].strip().startswith(fence.group(1)):
                    i += 1
                self.check_block(rel, start, lang, lines[start:i])
            elif lines[i].strip():
                if not paragraph:
                    first = i + 1
                paragraph.append(lines[i])
            i += 1
        self.check_paragraph(rel, first, doc, paragraph)

    def check_block(self, rel, start, lang, block):
        if lang == "ini":
            self.check_ini(f"{rel}:{start}", block)
            return
        module = any("module load secpe" in line for line in block)
        logical, first = "", start
        for n, line in enumerate(block, start + 1):
            if not logical:
                first = n
            code = re.sub(r"(^|\s)#.*$", "", line) if lang in ("bash", "sh", "") else line
            if code.rstrip().endswith("\\"):
                logical += code.rstrip()[:-1] + " "
                continue
            logical += code
            self.check_code(f"{rel}:{first}", logical)
            if lang == "bash" and not module and BARE_SECPE.search(logical.strip()):
                self.problem(f"{rel}:{first}", "secpe is not on PATH in a source tree: write ./build/secpe "
                             "(or load the module first in the same block)")
            logical = ""

    def check_code(self, where, code):
        self.check_paths(where, code)
        used = self.check_command_line(where, code)
        self.check_bare_options(where, code, used)

    def check_paragraph(self, rel, first, doc, paragraph):
        """Prose (a paragraph, a list or a table): its links and its inline code spans."""
        if not paragraph:
            return
        text = "\n".join(paragraph)
        for m in re.finditer(r"`([^`]+)`", text):
            where = f"{rel}:{first + text.count(chr(10), 0, m.start())}"
            span = " ".join(m.group(1).split())
            words = span.split()
            if not re.search(r"(?<![\w-])secpe\s", span) and words[0] in self.commands and "--" in span:
                span = "secpe " + span  # `bench kernel --screen`: a command named without secpe
            self.check_code(where, span)
        no_code = re.sub(r"`[^`]*`", "", text)
        for m in re.finditer(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", no_code):
            self.check_link(f"{rel}:{first + no_code.count(chr(10), 0, m.start())}", doc, m.group(1))


def marked_block(src, doc, mark):
    """The fenced block after a docs-test mark, as lines of shell (comments and blanks left out)."""
    lines = open(os.path.join(src, doc), encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith(mark):
            j = i + 1
            if not lines[j].startswith("```"):
                break
            k = j + 1
            while not lines[k].startswith("```"):
                k += 1
            return [l for l in lines[j + 1:k] if l.strip() and not l.strip().startswith("#")]
    sys.exit(f"docs_check: {doc} has no block after '{mark}'")


def headline_commands(src):
    """(line number, command) of every command in the README's headline-figures table."""
    lines = open(os.path.join(src, "README.md"), encoding="utf-8").read().split("\n")
    start = lines.index("## Headline figures")
    commands = []
    for n, line in enumerate(lines[start:], start + 1):
        if n > start + 1 and line.startswith("## "):
            break
        cells = line.split(" | ")
        if line.startswith("|") and len(cells) >= 3 and not set(cells[1]) <= set("-| "):
            for code in re.findall(r"`([^`]+)`", cells[2].replace("\\|", ALT)):
                commands.append((n, code.replace(ALT, "|")))
    return commands


def check_runnable(checker, src):
    """The headline figures and docs/performance.md run as written, after the quickstart."""
    reproduce = marked_block(src, "docs/performance.md", REPRODUCE_MARK)
    made = set(re.findall(r"--out (data/\S+)", "\n".join(reproduce)))
    made |= {m[:-len(".csv")] + ".secrets.txt" for m in made if m.endswith(".csv")}  # secpe corpus
    ini = open(os.path.join(src, "jobs/quickstart.ini"), encoding="utf-8").read()
    made |= set(re.findall(r"^out = (data/\S+)", ini, re.M)) | set(re.findall(r"^\S+ = (data/\S+)", ini, re.M))
    for n, command in headline_commands(src):
        if command.startswith(("the same", "--")):  # a variation of the command above it
            continue
        if not re.match(r"(mpirun -n \d+ )?\./build/secpe |(\w+=\S+ )*bash jobs/", command):
            checker.problem(f"README.md:{n}", f"'{command}': a headline command runs as written from the "
                            "source tree: ./build/secpe ... or bash jobs/...")
        elif "./build/secpe" in command and command not in reproduce:
            checker.problem(f"README.md:{n}", f"'{command}' is not a line of docs/performance.md's "
                            "reproduce block, which docs.sh runs")
    perf = open(os.path.join(src, "docs/performance.md"), encoding="utf-8").read().split("\n")
    reads = [(f"docs/performance.md:{n}", code) for n, line in enumerate(perf, 1)
              for code in re.findall(r"`([^`]+)`", line) + ([line] if line.startswith("./") else [])]
    reads += [(f"README.md:{n}", c) for n, c in headline_commands(src)]
    for where, code in reads:
        for path in re.findall(r"--(?:" + "|".join(INPUT_OPTIONS) + r") (data/\S+)", code):
            if path not in made:
                checker.problem(where, f"'{path}' is made by no command of docs/performance.md's "
                                "reproduce block nor by the quickstart: say first how to make it")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, secpe = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if sys.argv[3:] == ["--walkthrough"]:
        print("\n".join(marked_block(src, "README.md", WALKTHROUGH_MARK)))
        return
    if sys.argv[3:] == ["--reproduce"]:
        print("\n".join(marked_block(src, "docs/performance.md", REPRODUCE_MARK)))
        return
    checker = Checker(src, secpe)
    docs = [os.path.join(src, f) for f in ("README.md", "DEVELOPERS.md", "data/README.md")]
    docs += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    for doc in docs:
        checker.check_file(doc)
    checker.check_guide(docs)
    checker.check_folder_map()
    check_runnable(checker, src)
    for p in checker.problems:
        print(p)
    print(f"docs_check: {len(docs)} files, {len(checker.problems)} problem(s)")
    sys.exit(1 if checker.problems else 0)


if __name__ == "__main__":
    main()
