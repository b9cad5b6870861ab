#!/bin/sh
# Installs the Debian packages the tests and the demo drive: the two browsers the runtime tests
# (test/runtimes/) and the browser example drive, chromium-headless-shell and firefox-esr; and the
# servers the tests start as child processes: nginx (test/nginx/), haproxy (test/haproxy/), caddy
# (test/caddy/) and redis-server (test/support/redis-server.ts). Quick and silent when all are there
# (a file check, run by scripts/bootstrap.sh before every `make demo` / `make test`). As root, a
# missing one is installed with apt-get; otherwise, or when that fails, it says so loudly and goes
# on: the tests that need it then fail, each saying why (never skipped).
# Where test/runtimes/hosts/launch-browser.ts and test/support/<server>/ look; JITTERBUG_CHROMIUM,
# JITTERBUG_FIREFOX, JITTERBUG_NGINX, JITTERBUG_HAPROXY, JITTERBUG_CADDY and JITTERBUG_REDIS name
# another executable (then nothing is installed for it).
set -u

missing=""
found() {
  for path in "$@"; do
    [ -n "$path" ] && [ -x "$path" ] && return 0
  done
  return 1
}
# need VARIABLE PACKAGE PATH...: the package is missing unless the variable names an executable
# (which is then checked and never installed) or one of the paths is one.
need() {
  variable=$1
  package=$2
  shift 2
  eval "given=\${$variable:-}"
  if [ -n "$given" ]; then
    found "$given" || echo "install-debian-packages: $variable=$given is not an executable" >&2
  else
    found "$@" || missing="$missing $package"
  fi
}
need JITTERBUG_CHROMIUM chromium-headless-shell /usr/bin/chromium-headless-shell /usr/bin/chromium
need JITTERBUG_FIREFOX firefox-esr /usr/bin/firefox-esr /usr/bin/firefox
need JITTERBUG_NGINX nginx /usr/sbin/nginx
need JITTERBUG_HAPROXY haproxy /usr/sbin/haproxy
need JITTERBUG_CADDY caddy /usr/bin/caddy
need JITTERBUG_REDIS redis-server /usr/bin/redis-server
[ -z "$missing" ] && exit 0

install="apt-get install -y --no-install-recommends$missing"
loud() {
  {
    echo
    echo "======================================================================"
    echo "install-debian-packages: NOT INSTALLED:$missing"
    echo "  $1"
    echo "  Until they are, the tests that need them FAIL (make test: a browser's runtime"
    echo "  tests, the real servers' in test/nginx/, test/haproxy/, test/caddy/) and the"
    echo "  demo's browser section reports an error (make demo). To install, as root:"
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
echo "install-debian-packages: installing$missing (apt-get; the two browsers about 600 MB)" >&2
if DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2; then
  echo "install-debian-packages: installed$missing" >&2
else
  loud "apt-get failed (see above)."
fi
# Debian's server packages start their system service where an init system runs one (nginx on port
# 80, haproxy and caddy on theirs, redis on 6379); the tests start their own, so a service the
# install started is stopped.
stop_service() {
  service=$1
  pidfile=$2
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
    echo "install-debian-packages: stopping the $service service the package started" >&2
    systemctl disable --now "$service" >&2
  elif [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "install-debian-packages: stopping the $service service the package started" >&2
    kill -TERM "$(cat "$pidfile")"
  fi
}
for package in $missing; do
  case "$package" in
    nginx) stop_service nginx /run/nginx.pid ;;
    haproxy) stop_service haproxy /run/haproxy.pid ;;
    caddy) stop_service caddy /run/caddy.pid ;;
    redis-server) stop_service redis-server /run/redis/redis-server.pid ;;
  esac
done
exit 0
