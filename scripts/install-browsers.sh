#!/bin/sh
# Installs the two browsers the runtime tests (test/runtimes/) and the browser example drive:
# Debian's chromium-headless-shell and firefox-esr; and Debian's nginx, which the tests in
# test/nginx/ start as a child process. Quick and silent when all are there (a file check, run by
# scripts/bootstrap.sh before every `make demo` / `make test`). As root, a missing one is installed
# with apt-get; otherwise, or when that fails, it says so loudly and goes on: the tests that need it
# then fail, each saying why (never skipped).
# Where test/runtimes/hosts/launch-browser.ts and test/support/nginx/ look; JITTERBUG_CHROMIUM /
# JITTERBUG_FIREFOX / JITTERBUG_NGINX name another executable (then nothing is installed for it).
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
if [ -n "${JITTERBUG_NGINX:-}" ]; then
  found "$JITTERBUG_NGINX" || echo "install-browsers: JITTERBUG_NGINX=$JITTERBUG_NGINX is not an executable" >&2
else
  found /usr/sbin/nginx || missing="$missing nginx"
fi
[ -z "$missing" ] && exit 0

install="apt-get install -y --no-install-recommends$missing"
loud() {
  {
    echo
    echo "======================================================================"
    echo "install-browsers: NOT INSTALLED:$missing"
    echo "  $1"
    echo "  Until they are, the tests that need them FAIL (make test: a browser's runtime"
    echo "  tests, nginx's in test/nginx/) and the demo's browser section reports an error"
    echo "  (make demo). To install, as root:"
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
echo "install-browsers: installing$missing (apt-get; the two browsers about 600 MB)" >&2
if DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2; then
  echo "install-browsers: installed$missing" >&2
else
  loud "apt-get failed (see above)."
fi
# Debian's nginx package starts its system service where an init system runs it (it listens on port
# 80); the tests start their own nginx, so a service the install started is stopped.
case "$missing" in
  *nginx*)
    if [ -s /run/nginx.pid ] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then
      echo "install-browsers: stopping the nginx service the package started" >&2
      { command -v systemctl >/dev/null 2>&1 && systemctl disable --now nginx >&2; } ||
        kill -TERM "$(cat /run/nginx.pid)"
    fi
    ;;
esac
exit 0
