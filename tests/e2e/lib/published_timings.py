"""Published timings (docs/privacy.md, "Timings"): for runs on two datasets that differ only in
private records, every timing field (a key ending in "seconds") of a published file must be one
the docs list as published, and present in both runs or in neither, line by line. Not a test
itself; tests/e2e/published_counts.sh runs it.

usage: published_timings.py DOCS.md OUT_A OUT_B
"""
import json
import re
import sys


def published_in_docs(docs):
    """The timings docs/privacy.md's "Timings" table marks as published."""
    section = docs.split('\n## Timings', 1)[1].split('\n## ', 1)[0]
    rows = [line.split('|') for line in section.splitlines() if line.startswith('| `')]
    names = {row[1].strip().strip('`') for row in rows if row[3].strip().startswith('yes')}
    assert names, 'docs/privacy.md: no published timing in the "Timings" table'
    return names


def timings(value, where, found):
    """Every timing key under `value`, as (where, key)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k.endswith('seconds'):
                found.add((where, k))
            timings(v, where + '.' + k, found)
    elif isinstance(value, list):
        for v in value:
            timings(v, where, found)
    return found


def published(out):
    found = set()
    for name in ('run.json', 'privacy.json'):
        timings(json.load(open(f'{out}/{name}')), name, found)
    for line in open(f'{out}/metrics.jsonl'):
        m = json.loads(line)
        where = 'metrics.jsonl[label %s, iteration %s%s]' % (m.get('label'), m.get('iteration'),
                                                            ', ' + m['population'] if 'population' in m else '')
        timings(m, where, found)
    return found


docs, one, two = sys.argv[1:4]
allowed = published_in_docs(open(docs).read())
a, b = published(one), published(two)
bad = sorted({k for _, k in a | b} - allowed)
assert not bad, f'timings published that docs/privacy.md does not list as published: {bad}'
assert a == b, f'timings present in one run only: {sorted(a ^ b)[:10]}'
print(f'published timings: {len(a)} fields, all public ({", ".join(sorted({k for _, k in a}))})')
