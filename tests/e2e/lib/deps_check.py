#!/usr/bin/python3
"""Checks that jobs/install-deps.sh installs everything the repository's scripts use.

Every shell script (parsed by shfmt into a syntax tree, so strings, comments and heredocs are not
taken for commands) and every Python file or inline Python program is read for the programs it
runs and the modules it imports. Each one must come from a Debian package that a fresh Debian 12
root has anyway (priority "required", and apt, which debootstrap adds) or that the install-deps
group the file belongs to pulls in (the group's packages and everything they depend on, as dpkg
records them on this machine). Programs and modules are traced to packages by dpkg's own file
lists (`dpkg -S`), not by a hand-kept table, so a tool that only this machine happens to have
(pyenv's Python modules, /usr/local, a package installed by hand) fails the check.

A program that a script first looks for (`command -v X`, `type X`, `hash X`) is optional there:
the script copes without it (a skipped test, a fallback), as CUDA's nvcc and Node's npm are.

Usage: deps_check.py SOURCE_DIR; prints one line per problem and exits 1 if there is any.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys

# The interpreter the scripts run (they call it by this path, so a PATH that puts another Python
# first, pyenv's say, does not change which modules they see) and whose modules we trace.
PYTHON = "/usr/bin/python3"
# A fresh root's PATH: nothing under /usr/local, nothing a user installed.
FRESH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# Commands that run the next word as a program.
WRAPPERS = {"timeout", "env", "exec", "nice", "nohup", "setsid", "stdbuf", "xargs", "command", "chroot"}
# Shell functions that a package defines when a script sources its init file.
SHELL_FUNCTIONS = {"module": "lmod"}
# Which install-deps group each file needs: the first pattern that matches decides.
GROUPS = [
    (r"^jobs/(quickstart|build|install-deps|mpi-env|blas-core)\.sh$|^jobs/lib/", "build"),
    (r"^analysis/|^jobs/(utility|scaling)-study\.sh$", "analysis"),
    (r"", "tests"),
]


def group_of(path):
    return next(group for pattern, group in GROUPS if re.search(pattern, path))


def run(*cmd, check=True):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"deps_check: {' '.join(cmd)} failed: {result.stderr.strip()}")
    return result


# ---- packages: what each group brings, as dpkg knows it ----
class Packages:
    def __init__(self, src):
        fields = "${Package}\t${Priority}\t${Status}\t${Provides}\t${Pre-Depends}, ${Depends}\n"
        self.deps, self.provides, base = {}, {}, {"apt"}
        for line in run("dpkg-query", "-W", "-f", fields).stdout.splitlines():
            name, priority, status, provides, depends = line.split("\t")
            if not status.endswith(" installed"):
                continue
            self.deps[name] = [[alt.split()[0].split(":")[0] for alt in clause.split("|")]
                               for clause in depends.split(",") if clause.strip()]
            for virtual in provides.split(","):
                if virtual.strip():
                    self.provides.setdefault(virtual.split()[0], []).append(name)
            if priority == "required":
                base.add(name)
        self.base = self.closure(base)
        self.groups = {}
        for group in ("build", "analysis", "tests"):
            listed = run("bash", f"{src}/jobs/install-deps.sh", "--list", group).stdout.split()
            missing = [p for p in listed if p not in self.deps]
            if missing:
                sys.exit(f"deps_check: install-deps.sh's {group} packages are not installed here: "
                         f"{' '.join(missing)} (run bash jobs/install-deps.sh {group} first)")
            self.groups[group] = self.closure(listed) | self.base

    def installed(self, name):
        if name in self.deps:
            return [name]
        return [p for p in self.provides.get(name, []) if p in self.deps]

    def closure(self, names):
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for clause in self.deps.get(name, []):
                for alt in clause:
                    found = self.installed(alt)
                    if found:
                        todo.extend(found)
                        break
        return seen


def owners(paths):
    """{path: the Debian package whose file list holds it (or the path it resolves to)}."""
    names = {}
    for path in paths:  # Debian 12 merges /bin into /usr/bin: dpkg may list either spelling
        for p in {path, os.path.realpath(path)}:
            names.setdefault(p, set()).add(path)
            names.setdefault(p[len("/usr"):] if p.startswith("/usr/") else "/usr" + p, set()).add(path)
    found = {}
    if names:
        listing = run("dpkg", "-S", *sorted(names), check=False).stdout  # one call: dpkg is slow to start
        for line in listing.splitlines():
            pkgs, _, listed = line.partition(": ")
            if listed in names and not pkgs.startswith("diversion by"):
                for path in names[listed]:
                    found.setdefault(path, pkgs.split(",")[0].strip().split(":")[0])
    return found


# ---- shell scripts: the programs they run ----
def words(node):
    """The literal text of a shfmt Word, or None where it holds an expansion."""
    text = ""
    for part in node.get("Parts", []):
        kind = part.get("Type")
        if kind in ("Lit", "SglQuoted"):
            text += part.get("Value", "")
        elif kind == "DblQuoted":
            inner = words(part)
            if inner is None:
                return None
            text += inner
        else:
            return None
    return text


def python_code_of(word):
    """Literal text of a Word, expansions left out (enough to read import statements)."""
    text = ""
    for part in word.get("Parts", []):
        if part.get("Type") in ("Lit", "SglQuoted"):
            text += part.get("Value", "")
        elif part.get("Type") == "DblQuoted":
            text += python_code_of(part)
        else:
            text += "_"
    return text


def walk(node, visit):
    if isinstance(node, dict):
        visit(node)
        for value in node.values():
            walk(value, visit)
    elif isinstance(node, list):
        for value in node:
            walk(value, visit)


def shell_uses(path, functions):
    """(programs run, optional programs, inline Python programs, Python files run) of a script."""
    with open(path) as script:
        tree = json.loads(subprocess.run(["shfmt", "--to-json"], stdin=script, capture_output=True,
                                         text=True, check=True).stdout)
    programs, optional, python, python_files = [], set(), [], []

    def visit(node):
        if node.get("Type") == "FuncDecl":
            functions.add(node["Name"]["Value"])
        if "Cmd" in node and node["Cmd"] and node["Cmd"].get("Type") == "CallExpr":
            args = [words(a) for a in node["Cmd"].get("Args", [])]
            line = node["Cmd"]["Pos"]["Line"]
            i = 0
            while i < len(args) and args[i] is not None:
                name = args[i]
                if name in ("command", "type", "hash") and i + 1 < len(args) and args[i + 1] in ("-v", "-p"):
                    optional.update(a for a in args[i + 2:] if a)
                    break
                if name in ("type", "hash"):
                    optional.update(a for a in args[i + 1:] if a)
                    break
                programs.append((name, line))
                if name.endswith("python3"):
                    script = next((a for a in args[i + 1:] if a and a.endswith(".py")), None)
                    if script is None:  # a file named through a variable: its name's last literal part
                        script = next((python_code_of(w) for w in node["Cmd"]["Args"][i + 1:]
                                       if python_code_of(w).endswith(".py")), None)
                    if script:
                        python_files.append((os.path.basename(script), line))
                    for j, a in enumerate(args):
                        if a == "-c" and j + 1 < len(node["Cmd"]["Args"]):
                            python.append((python_code_of(node["Cmd"]["Args"][j + 1]), line))
                    for redirect in node.get("Redirs") or []:
                        if redirect.get("Hdoc"):
                            python.append((python_code_of(redirect["Hdoc"]), line))
                if name not in WRAPPERS:
                    break
                i += 1  # the wrapped program: skip the wrapper's options, durations and VAR=value
                while i < len(args) and args[i] is not None and (
                        args[i].startswith("-") or re.fullmatch(r"[0-9.]+[smhd]?|\w+=.*", args[i])):
                    i += 2 if args[i] in ("-u", "-k", "-s") else 1  # options with a value

    walk(tree, visit)
    return programs, optional, python, python_files


# ---- Python: the modules it imports ----
def imports(code):
    try:
        tree = ast.parse(code)
    except SyntaxError:  # an inline program with shell expansions in odd places: read it by lines
        return set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", code, re.M))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def main():
    src = os.path.abspath(sys.argv[1])
    os.chdir(src)
    for tool in ("shfmt", "dpkg", PYTHON):
        if not shutil.which(tool):
            sys.exit(f"deps_check: {tool} is missing (jobs/install-deps.sh tests installs it)")
    tracked = run("git", "ls-files", "-co", "--exclude-standard").stdout.split() if os.path.isdir(".git") else [
        os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs]
    tracked = [p for p in tracked if os.path.isfile(p) and not p.startswith("build")]
    shells = [p for p in tracked if p.endswith((".sh", ".sbatch")) or p == ".ci/run"]
    pythons = [p for p in tracked if p.endswith(".py")]
    local_modules = {os.path.splitext(os.path.basename(p))[0] for p in pythons}
    stdlib = set(run(PYTHON, "-c", "import sys; print(*sys.stdlib_module_names)").stdout.split())
    builtins = set(run("bash", "-c", "compgen -b -k").stdout.split())
    packages = Packages(src)

    functions, uses = set(), []
    for path in shells:
        uses.append((path, *shell_uses(path, functions)))
    foreign = {os.path.basename(p): imports(open(p).read()) - stdlib - local_modules for p in pythons}
    needs = []  # (file, line, what, program path or ("module", name) or ("package", name))
    for path, programs, optional, python, python_files in uses:
        for name, line in programs:
            if name in builtins or name in functions or name in optional or name.startswith(("./", "../")):
                continue
            if name in SHELL_FUNCTIONS:
                needs.append((path, line, f"shell function '{name}'", ("package", SHELL_FUNCTIONS[name])))
            elif name.startswith("/"):
                needs.append((path, line, f"program '{name}'", name))
            else:
                needs.append((path, line, f"program '{name}'", shutil.which(name, path=FRESH_PATH)))
        modules = [(m, line) for code, line in python for m in imports(code) - stdlib - local_modules]
        modules += [(m, line) for script, line in python_files for m in foreign.get(script, ())]
        for module, line in modules:
            needs.append((path, line, f"Python module '{module}'", ("module", module)))
        bare = {line for name, line in programs if name == "python3"}
        for module, line in modules:
            if line in bare:
                needs.append((path, line, f"python3 with '{module}': call {PYTHON}, as another Python "
                              "may come first on PATH without the modules install-deps.sh installs", ("rule", None)))
    for path in pythons:
        needs += [(path, 1, f"Python module '{m}'", ("module", m)) for m in sorted(foreign[os.path.basename(path)])]

    modules = sorted({n[3][1] for n in needs if isinstance(n[3], tuple) and n[3][0] == "module"})
    origins = dict(zip(modules, module_origins(modules)))
    files = owners({p for p in [n[3] for n in needs if isinstance(n[3], str)] + list(origins.values())
                    if p and os.path.exists(p)})
    problems = set()
    for path, line, what, source in needs:
        if source == ("rule", None):
            problems.add(f"{path}:{line}: {what}")
            continue
        if isinstance(source, tuple):
            package = source[1] if source[0] == "package" else files.get(origins.get(source[1]))
        else:
            package = files.get(source) if source else None
        group = group_of(path)
        if package is None:
            problems.add(f"{path}:{line}: {what} comes from no Debian package, so install-deps.sh cannot "
                         "install it: check for it first (command -v) and cope without it")
        elif package not in packages.groups[group]:
            problems.add(f"{path}:{line}: {what} comes from Debian's {package}, which install-deps.sh's "
                         f"'{group}' group does not install")
    for problem in sorted(problems):
        print(problem)
    commands = sum(len(u[1]) for u in uses)
    print(f"deps_check: {len(shells)} shell scripts ({commands} commands), {len(pythons)} Python files: "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


def module_origins(modules):
    """Where Debian's Python finds each module ('' where it finds none)."""
    code = ("import importlib.util as u, sys\n"
            "for m in sys.argv[1:]:\n"
            "    s = u.find_spec(m)\n"
            "    print(s.origin if s and s.origin else '')")
    return run(PYTHON, "-c", code, *modules).stdout.splitlines() if modules else []


if __name__ == "__main__":
    sys.exit(main())
