#!/usr/bin/env bash
# Installs the packages as a new user does, from the tarballs `pnpm pack` makes, into a fresh project
# outside the workspace (no workspace links), offline from the local pnpm store, and uses them there:
#   1. packs every published package and checks the packed package.json (workspace: ranges rewritten);
#   2. installs the tarballs, with the peers at the versions the workspace uses, with `--offline`;
#   3. checks what each package ships (LICENSE, README.md, CHANGELOG.md, dist .js + .d.ts, its entry
#      points, no tests);
#   4. runs check.mjs (every package imported by name; one request retried 503 -> 200 through fetch, ky,
#      axios and undici) on the Node on PATH and on Node 22 (the oldest `engines` promises) if present;
#   5. typechecks test/types/consumer.ts with TypeScript 5.7 against the installed packages;
#   6. runs the simulator's `jitterbug-sim` bin.
# Expects the packages built (scripts/check-packages.sh runs it after the build). Nothing is downloaded:
# a dependency missing from the store fails the install. Exits non-zero, with the step, on a failure.
# PACK_INSTALL_KEEP=1 keeps the fresh project (its path is printed) instead of removing it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
here=$root/scripts/pack-install
started=$(date +%s%N)
step() { echo "pack-install: $*"; }
fail() {
  echo "pack-install FAILED: $*" >&2
  exit 1
}

store=$(pnpm store path)
work=$(mktemp -d "${TMPDIR:-/tmp}/jitterbug-pack-install.XXXXXX")
case "$work/" in "$root"/*) fail "the temporary directory $work is inside the workspace; set TMPDIR elsewhere" ;; esac
app=$work/app
cleanup() {
  if [ "${PACK_INSTALL_KEEP:-}" = 1 ]; then
    echo "pack-install: kept $work" >&2
    return
  fi
  rm -rf "$work"
  # pnpm registers every project it installs in the store (for `pnpm store prune`); forget this one.
  find "$store/projects" -maxdepth 1 -type l -lname "$app" -delete 2>/dev/null || true
}
trap cleanup EXIT

# 1. Pack.
mapfile -t dirs < <(node -e '
  const { readdirSync, readFileSync } = require("node:fs");
  for (const dir of readdirSync("packages").sort()) {
    let manifest;
    try { manifest = JSON.parse(readFileSync(`packages/${dir}/package.json`, "utf8")); } catch { continue; }
    if (manifest.private !== true) console.log(`packages/${dir}`);
  }')
[ "${#dirs[@]}" -gt 0 ] || fail "no published package found under packages/"
for dir in "${dirs[@]}"; do
  [ -f "$dir/dist/index.js" ] || fail "$dir is not built (no dist/index.js): run scripts/check-packages.sh --build-only"
  (cd "$dir" && pnpm pack --pack-destination "$work/tarballs" >"$work/pack.log" 2>&1) ||
    { cat "$work/pack.log" >&2; fail "pnpm pack in $dir"; }
done
summary=$(node "$here/prepare.mjs" "$root" "$work/tarballs" "$app") || fail "the packed package.json files (above)"
step "packed: $summary"

# 2. Install, offline, from the local store.
(cd "$app" && pnpm install --offline --store-dir "$store" >"$work/install.log" 2>&1) || {
  cat "$work/install.log" >&2
  fail "pnpm install --offline in a fresh project (a dependency not in the local store ($store) is named above; nothing is downloaded)"
}
step "installed offline into a fresh project ($(grep -c '^+ ' "$work/install.log") direct dependencies)"

# 3. What each package ships.
summary=$(node "$here/files.mjs" "$app") || fail "the shipped files (above)"
step "files: $summary"

# 4. A user's program.
cp "$here/check.mjs" "$app/check.mjs"
node22=$root/.tools/node_modules/node22/bin/node
runtimes=(node)
if [ -x "$node22" ]; then runtimes+=("$node22"); else step "Node 22 is not installed at $node22: check.mjs runs on $(node --version) only"; fi
for runtime in "${runtimes[@]}"; do
  version=$("$runtime" --version)
  (cd "$app" && "$runtime" check.mjs >"$work/check.log" 2>&1) ||
    { cat "$work/check.log" >&2; fail "node check.mjs on Node $version"; }
  step "node check.mjs on Node $version: every package and subpath imported by name, a 503 then 200 retried (2 attempts) through $(grep -c '^  ' "$work/check.log") clients"
done

# 5. Types, read by the oldest TypeScript the READMEs promise, from the installed packages.
cp "$root/test/types/consumer.ts" "$root/test/types/tsconfig.json" "$app/"
(cd "$app" && "$root/node_modules/typescript57/bin/tsc" -p tsconfig.json) ||
  fail "TypeScript $("$root/node_modules/typescript57/bin/tsc" --version) cannot typecheck test/types/consumer.ts against the installed packages"
step "types: TypeScript $("$root/node_modules/typescript57/bin/tsc" --version | sed 's/^Version //') typechecks test/types/consumer.ts against the installed .d.ts files"

# 6. The executables the packages declare in `bin`, as the install linked them.
mapfile -t bins < <(cd "$app" && node -e '
  const { readFileSync } = require("node:fs");
  const deps = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).dependencies);
  for (const name of deps.filter((dep) => dep.startsWith("@jitterbug/"))) {
    const { bin } = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
    for (const command of typeof bin === "string" ? [name.split("/")[1]] : Object.keys(bin ?? {})) console.log(command);
  }')
for bin in "${bins[@]}"; do
  (cd "$app" && "node_modules/.bin/$bin" --help >"$work/bin.log" 2>&1) ||
    { cat "$work/bin.log" >&2; fail "node_modules/.bin/$bin --help"; }
  step "bin: $bin --help runs ($(wc -l <"$work/bin.log") lines of help)"
done

step "ok in $((($(date +%s%N) - started) / 1000000)) ms"
