#!/usr/bin/env bash
# The servers the storage and data hub tests start as real peers (test/support/peers/): OpenSSH's sshd
# (SFTP) and OpenStack Swift with s3api (S3); and Debian's Chromium, which the dashboard's browser test
# drives with playwright-core (never `npx playwright install`). Installs the Debian packages when one is
# missing, saying so in one line; prints nothing when all are there. Run by `npm test` (pretest).
set -euo pipefail

PACKAGES=(openssh-server swift-proxy swift-object swift-account swift-container chromium)

if [ -x /usr/sbin/sshd ] && command -v swift-proxy-server >/dev/null 2>&1 &&
  command -v swift-object-server >/dev/null 2>&1 && command -v swift-account-server >/dev/null 2>&1 &&
  command -v swift-container-server >/dev/null 2>&1 && [ -x /usr/bin/chromium ]; then
  exit 0
fi

fail() {
  printf 'install-test-peers: %s\n' "$*" >&2
  exit 1
}

SUDO=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || fail "not root and no sudo: install ${PACKAGES[*]} yourself"
  SUDO=(sudo)
fi
command -v apt-get >/dev/null 2>&1 || fail "no apt-get on this machine: install sshd, OpenStack Swift and Chromium (${PACKAGES[*]} on Debian) yourself"

echo "install-test-peers: installing ${PACKAGES[*]} (apt-get) for the SFTP and S3 test peers and the dashboard's browser test"
# apt-get's own output goes to a log shown only when it fails.
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$LOG" 2>&1 ||
  ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >>"$LOG" 2>&1; then
  tail -n 30 "$LOG" >&2
  fail "apt-get could not install ${PACKAGES[*]}"
fi
[ -x /usr/sbin/sshd ] && command -v swift-proxy-server >/dev/null 2>&1 && [ -x /usr/bin/chromium ] ||
  fail "apt-get finished but /usr/sbin/sshd, swift-proxy-server or /usr/bin/chromium is still missing"
