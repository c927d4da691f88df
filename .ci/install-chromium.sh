#!/usr/bin/env bash
# Installs Debian's chromium for the setup-page browser test
# (adapter/connect_browser_test.go), unless it is already there.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium: chromium is missing; install Debian's chromium package (apt-get install chromium)" >&2
	exit 1
fi
echo "install-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
timeout 900 apt-get update -qq
timeout 900 apt-get install -y -qq --no-install-recommends chromium >/dev/null
chromium --version >&2
