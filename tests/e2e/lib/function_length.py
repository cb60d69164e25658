#!/usr/bin/env python3
"""Lists the functions in src/ longer than a limit (the brief's rule: none over 100 lines).
Used by tests/e2e/function_length.sh; prints one line per function and exits 1 if there is any.

  function_length.py SOURCE_DIR [LIMIT]

A brace matcher, not a parser: comments, string and character literals (raw strings too) and
preprocessor lines are blanked first; then a '{' opens a function body when the text before it
(since the last ';', '{' or '}') ends in ')' and optional qualifiers (const, noexcept, override,
a trailing return type, a constructor's initialiser list) and does not start a control statement.
A function's lines run from its header to its closing brace; lambdas and local classes count as
part of the function that holds them.
"""
import pathlib
import re
import sys

CONTROL = re.compile(r'\b(if|for|while|switch|catch)\s*$')
FUNCTION_TAIL = re.compile(r'\)\s*(?:const|noexcept(?:\s*\([^)]*\))?|override|final|mutable|&|&&|\s)*'
                           r'(?:->\s*[\w:<>,\s*&\[\]]+)?\s*$')
CONTAINER = re.compile(r'\b(namespace|class|struct|union|enum)\b[^()]*$')
RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(')


def blank(src):
    """src with comments, literals and preprocessor lines removed, newlines kept (lines still count)."""
    out, i, n = [], 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == '#':  # a directive, with its continuation lines
            while i < n and src[i] != '\n':
                if src.startswith('\\\n', i):
                    out.append('\n')
                    i += 1
                i += 1
            continue
        if src.startswith('//', i):
            i = src.find('\n', i) if '\n' in src[i:] else n
            continue
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * src.count('\n', i, j))
            i = j
            continue
        raw = RAW_STRING.match(src, i) if c in 'uULR' and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')) else None
        if raw:
            end = ')' + raw.group(1) + '"'
            j = src.find(end, raw.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + '\n' * src.count('\n', i, j))
            i = j
            continue
        if c == '"' or (c == "'" and not (i > 0 and src[i - 1].isalnum())):  # 1'000'000 is a number
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        line_start = c == '\n' or (line_start and c in ' \t')
        i += 1
    return ''.join(out)


def is_function_header(header):
    h = header.strip()
    if CONTAINER.search(h) or h.startswith('='):
        return False
    if re.search(r'\)\s*:(?!:)', h):  # a constructor's initialiser list
        h = re.sub(r'\)\s*:\s*[^;]*$', ')', h)
    return bool(FUNCTION_TAIL.search(h)) and not CONTROL.search(h.rsplit('(', 1)[0])


def functions(text):
    """(name, first line, last line) of every outermost function body in blanked text."""
    stack = []  # (is_function, first line, header) per open brace
    header_start = 0
    for m in re.finditer(r'[{};]', text):
        ch, pos = m.group(), m.start()
        if ch == '{':
            header = text[header_start:pos]
            inside = any(f for f, _, _ in stack)
            first = text.count('\n', 0, pos - len(header.lstrip())) + 1
            stack.append((not inside and is_function_header(header), first, header.strip()))
            header_start = pos + 1
        elif ch == '}':
            if stack:
                is_function, first, header = stack.pop()
                if is_function:
                    names = re.findall(r'([~\w:]+|operator\s*[^\s(]+)\s*\(', header)
                    yield (names[0] if names else ' '.join(header.split())[:40]), first, text.count('\n', 0, pos) + 1
            header_start = pos + 1
        elif text.count('(', header_start, pos) <= text.count(')', header_start, pos):  # not for(;;)
            header_start = pos + 1


def main():
    root = pathlib.Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    long = []
    for path in sorted(p for p in (root / 'src').rglob('*') if p.suffix in ('.cpp', '.hpp', '.cu', '.cuh')):
        for name, first, last in functions(blank(path.read_text())):
            if last - first + 1 > limit:
                long.append((last - first + 1, f'{path.relative_to(root)}:{first}-{last}', name))
    for lines, where, name in sorted(long, reverse=True):
        print(f'{where}: {name} has {lines} lines (limit {limit}): split it into named steps')
    return 1 if long else 0


if __name__ == '__main__':
    sys.exit(main())
