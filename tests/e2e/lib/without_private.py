"""A corpus without some of its private records (those holding a planted secret), for the e2e
tests that compare datasets differing only in private records. Not a test itself.

usage: without_private.py CORPUS.csv SECRETS.txt OUT.csv (--last | --every N)
  --last: the last private record left out (a neighbouring dataset);
  --every N: every N-th private record left out (the public records, so the labels, all stay).
"""
import csv
import re
import sys

corpus, secrets_file, out, mode = sys.argv[1:5]
rows = list(csv.reader(open(corpus, newline='')))
secrets = [s.strip() for s in open(secrets_file) if s.strip() and not s.startswith('#')]
pattern = re.compile(r'\b(' + '|'.join(re.escape(s) for s in secrets) + r')\b', re.I)
private = [i for i, r in enumerate(rows) if i > 0 and pattern.search(r[0])]
drop = {private[-1]} if mode == '--last' else set(private[::int(sys.argv[5])])
assert drop and (mode == '--last' or len(drop) >= 10), len(drop)
csv.writer(open(out, 'w', newline='')).writerows(r for i, r in enumerate(rows) if i not in drop)
