#!/bin/sh
# Installs the two browsers the runtime tests (test/runtimes/) and the browser example drive:
# Debian's chromium-headless-shell and firefox-esr. Quick and silent when both are there (a file
# check, run by scripts/bootstrap.sh before every `make demo` / `make test`). As root, a missing one
# is installed with apt-get; otherwise, or when that fails, it says so loudly and goes on: the tests
# of that browser then fail, each saying why (never skipped).
# Where test/runtimes/hosts/launch-browser.ts looks; JITTERBUG_CHROMIUM / JITTERBUG_FIREFOX name
# another executable (then nothing is installed for it).
set -u

missing=""
found() {
  for path in "$@"; do
    [ -n "$path" ] && [ -x "$path" ] && return 0
  done
  return 1
}
if [ -n "${JITTERBUG_CHROMIUM:-}" ]; then
  found "$JITTERBUG_CHROMIUM" || echo "install-browsers: JITTERBUG_CHROMIUM=$JITTERBUG_CHROMIUM is not an executable" >&2
else
  found /usr/bin/chromium-headless-shell /usr/bin/chromium || missing="$missing chromium-headless-shell"
fi
if [ -n "${JITTERBUG_FIREFOX:-}" ]; then
  found "$JITTERBUG_FIREFOX" || echo "install-browsers: JITTERBUG_FIREFOX=$JITTERBUG_FIREFOX is not an executable" >&2
else
  found /usr/bin/firefox-esr /usr/bin/firefox || missing="$missing firefox-esr"
fi
[ -z "$missing" ] && exit 0

install="apt-get install -y --no-install-recommends$missing"
loud() {
  {
    echo
    echo "======================================================================"
    echo "install-browsers: NOT INSTALLED:$missing"
    echo "  $1"
    echo "  Until they are, the runtime tests in that browser FAIL (make test) and"
    echo "  the demo's browser section reports an error (make demo). To install, as root:"
    echo "    apt-get update && $install"
    echo "======================================================================"
    echo
  } >&2
}

if [ "$(id -u)" -ne 0 ]; then
  loud "not root, so nothing was installed."
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  loud "no apt-get here (these are Debian's packages)."
  exit 0
fi
echo "install-browsers: installing$missing (apt-get, about 600 MB)" >&2
if DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2; then
  echo "install-browsers: installed$missing" >&2
else
  loud "apt-get failed (see above)."
fi
exit 0
