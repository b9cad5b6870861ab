#!/usr/bin/env bash
# Every test: typecheck, lint and package checks, the whole suite on the Node on PATH (24), then the conformance suite and the undici
# adapter's own tests again on Node 22, the oldest Node that `engines` promises (its global fetch
# bundles undici 6, whose handlers and header records the adapter must read as it reads 7's and 8's).
# Ends with one line `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/.."
summary=$(mktemp)
export JITTERBUG_SUMMARY_FILE=$summary
status=0

# A vitest that dies before its reporter wrote a summary line still counts: as one failure.
run_vitest() {
  local lines_before
  lines_before=$(wc -l <"$summary")
  "$@" || status=1
  if [ "$(wc -l <"$summary")" -eq "$lines_before" ]; then
    echo "vitest ended without a summary (crashed or killed): counted as 1 failure" >&2
    echo "0 1 0" >>"$summary"
    status=1
  fi
}

# Typecheck, lint and the package checks run first; each that fails counts as one failure, and the
# tests still run, so that the output always ends with the summary line.
run_check() {
  local name=$1
  shift
  echo "== $name"
  if ! "$@"; then
    echo "$name failed: counted as 1 failure" >&2
    echo "0 1 0" >>"$summary"
    status=1
  fi
}
if [ $# -eq 0 ]; then
  run_check "typecheck (tsc -p tsconfig.json)" tsc -p tsconfig.json
  run_check "lint (biome check .)" biome check .
  run_check "package checks (publint, arethetypeswrong, TypeScript 5.7, pack and install)" bash scripts/check-packages.sh
fi

echo "== vitest on $(node --version)"
run_vitest vitest run "$@"

node22=.tools/node_modules/node22/bin/node
if [ $# -eq 0 ] && compgen -G "test/conformance/*.test.ts" >/dev/null; then
  echo "== conformance suite and undici adapter on $($node22 --version)"
  run_vitest "$node22" node_modules/vitest/vitest.mjs run test/conformance packages/undici
fi

read -r passed failed skipped < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$summary")
rm -f "$summary"
[ "$failed" -gt 0 ] && status=1
echo
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
