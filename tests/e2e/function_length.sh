#!/usr/bin/env bash
# No function in src/ is over 100 lines (the brief's style rule; tests/e2e/lib/function_length.py
# counts them). The counter is checked first on a made-up file, so a counter that stopped seeing
# functions cannot pass: braces in strings, comments and raw strings are ignored, a 101-line
# function is found, a 100-line one and a long class are not.
source "$(dirname "$0")/lib/preamble.sh"
CHECK=$LIB/function_length.py

mkdir -p "$T/src/sub"
{
  echo 'namespace a { struct S {'
  echo '  int f(int x) const {  // { in a comment'
  for i in $(seq 98); do echo '    x += 1;'; done
  echo '    return x; }'
  echo '}; }'
  echo 'Result<int> too_long(const std::string& s) noexcept {'
  echo '  const char* q = "}}}"; char c = '"'}'"'; auto r = R"x({)x";'
  echo '  /* } */'
  for i in $(seq 97); do echo '  if (s.empty()) { c = 0; }'; done
  echo '}'
} > "$T/src/sub/made_up.cpp"
expect 1 "src/sub/made_up.cpp:103-203: too_long has 101 lines" -- python3 "$CHECK" "$T"
[ "$(python3 "$CHECK" "$T" | wc -l)" = 1 ] || fail "the counter found more than the one long function: $(python3 "$CHECK" "$T")"

python3 "$CHECK" "$SRC" || fail "functions over 100 lines in src/ (listed above): split each into named steps"
echo "no function in src/ is over 100 lines"
