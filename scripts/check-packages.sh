#!/usr/bin/env bash
# Builds every published package (`--build-only` stops there) (ESM .js + .d.ts into dist/) and checks what npm would ship:
# publint (package.json fields and files) and arethetypeswrong (types resolve for ESM consumers), and
# that TypeScript 5.7 (the oldest the READMEs promise) reads the built .d.ts files; then installs the
# packed tarballs into a fresh project and uses them there (scripts/pack-install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=()
for dir in packages/*/; do
  [ -f "$dir/tsconfig.build.json" ] && [ -f "$dir/src/index.ts" ] && packages+=("${dir%/}")
done
# From clean: tsc -b never deletes the output of a source file that was deleted, and npm would ship it.
for pkg in "${packages[@]}"; do rm -rf "$pkg/dist" "$pkg/tsconfig.build.tsbuildinfo"; done
tsc -b "${packages[@]/%//tsconfig.build.json}"
[ "${1:-}" = "--build-only" ] && exit 0
# The built .d.ts files, read by the oldest TypeScript the READMEs promise, from a user's program.
node_modules/typescript57/bin/tsc -p test/types/tsconfig.json || { echo "types: TypeScript 5.7 cannot read the .d.ts files" >&2; exit 1; }
echo "types ok: TypeScript 5.7 reads the built .d.ts files"
for pkg in "${packages[@]}"; do
  publint --level warning "$pkg" >/dev/null || { publint "$pkg"; exit 1; }
  # ESM only by design: CommonJS consumers use import().
  attw --pack "$pkg" --profile esm-only --quiet || { attw --pack "$pkg" --profile esm-only; exit 1; }
  echo "package ok: $pkg"
done
# The tarballs `pnpm pack` makes, installed offline into a fresh project and used there as a new user would.
bash scripts/pack-install.sh
