#!/usr/bin/env bash
# The servers the tests start as real peers (test/support/peers/): OpenSSH's sshd (SFTP), OpenStack Swift
# with s3api (S3), PgBouncer (a pooler in transaction mode), HAProxy (the balancer before several
# instances) and Prometheus (scraping the metrics); and Debian's Chromium, which the dashboard's browser
# test drives with playwright-core (never `npx playwright install`). The read replica's tests use the
# PostgreSQL server's own initdb, pg_ctl and pg_basebackup. Installs the Debian packages when one is
# missing, saying so in one line; prints nothing when all are there. Run by `npm test` (pretest).
set -euo pipefail

PACKAGES=(openssh-server swift-proxy swift-object swift-account swift-container chromium pgbouncer haproxy prometheus)
# What each package gives, by the same index: installed when every one is there.
PROGRAMS=(/usr/sbin/sshd swift-proxy-server swift-object-server swift-account-server swift-container-server /usr/bin/chromium
  /usr/sbin/pgbouncer /usr/sbin/haproxy /usr/bin/prometheus)

missing() {
  local program
  for program in "${PROGRAMS[@]}"; do
    if [ "${program#/}" != "$program" ]; then [ -x "$program" ] || echo "$program"; else command -v "$program" >/dev/null 2>&1 || echo "$program"; fi
  done
}

[ -z "$(missing)" ] && exit 0

fail() {
  printf 'install-test-peers: %s\n' "$*" >&2
  exit 1
}

SUDO=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || fail "not root and no sudo: install ${PACKAGES[*]} yourself"
  SUDO=(sudo)
fi
command -v apt-get >/dev/null 2>&1 || fail "no apt-get on this machine: install ${PACKAGES[*]} (Debian's names) yourself"

echo "install-test-peers: installing ${PACKAGES[*]} (apt-get) for the test peers and the dashboard's browser test"
# apt-get's own output goes to a log shown only when it fails.
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$LOG" 2>&1 ||
  ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >>"$LOG" 2>&1; then
  tail -n 30 "$LOG" >&2
  fail "apt-get could not install ${PACKAGES[*]}"
fi
[ -z "$(missing)" ] || fail "apt-get finished but $(missing | tr '\n' ' ')is still missing"
