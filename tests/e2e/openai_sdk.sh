#!/usr/bin/env bash
# `secpe serve` as the official OpenAI Node SDK (`openai` on the npm registry, major version 6,
# installed into the build folder by this test) sees it, over 127.0.0.1: models.list, embeddings
# (float, base64, and the SDK's default), completions (n = 3, max_tokens = 20, streaming), chat
# (streaming with usage and not), and errors (unknown model, unsupported parameter, wrong key).
# Skipped, saying why, without node/npm or when the registry cannot be reached.
source "$(dirname "$0")/lib/preamble.sh"
source "$LIB/serve.sh"
skip() { echo "openai_sdk: SKIPPED: $*"; exit 0; }
SDK_MAJOR=6
command -v node >/dev/null && command -v npm >/dev/null || skip "node and npm are not installed"
# The SDK goes into the build folder (ignored by git), once; a later run reuses it.
PREFIX=$(cd "$(dirname "$SECPE")" && pwd)/npm-openai
if ! node -e "process.exit(require('$PREFIX/node_modules/openai/package.json').version.startsWith('$SDK_MAJOR.') ? 0 : 1)" 2>/dev/null; then
  mkdir -p "$PREFIX"
  timeout 300 npm install --prefix "$PREFIX" --no-audit --no-fund --no-save --loglevel=error "openai@$SDK_MAJOR" >"$T/npm.log" 2>&1 \
    || skip "npm could not install openai@$SDK_MAJOR (registry unreachable?): $(tail -2 "$T/npm.log")"
fi
VERSION=$(node -e "console.log(require('$PREFIX/node_modules/openai/package.json').version)")
cp "$LIB/openai_sdk.mjs" "$PREFIX/openai_sdk.mjs"

export SECPE_SDK_KEY="sk-sdk-$RANDOM$RANDOM"
"$SECPE" corpus --records 300 --seed 4 --secret-rate 0 --out "$T/public.csv" 2>/dev/null || fail "corpus"
serve sdk "$SECPE" serve --corpus "$T/public.csv" --dim 64 --api-key-env SECPE_SDK_KEY
node "$PREFIX/openai_sdk.mjs" "http://127.0.0.1:$PORT/v1" || fail "the OpenAI Node SDK $VERSION failed against secpe serve"
echo "openai_sdk: ok (openai $VERSION, node $(node --version))"
