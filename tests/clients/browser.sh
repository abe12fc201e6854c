#!/usr/bin/env bash
# Installs the browser the board's tests drive (tests/integration/board.rs): Debian's chromium
# and chromium-driver (chromedriver), unless chromedriver is already on PATH. Needs root (or
# sudo) for apt-get; elsewhere install them by hand. Idempotent.
set -euo pipefail
if command -v chromedriver >/dev/null 2>&1; then
  echo "setup: chromedriver ready ($(chromedriver --version | head -n1))" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo="sudo"
fi
echo "setup: installing chromium and chromium-driver (apt-get)" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >&2
echo "setup: chromedriver ready ($(chromedriver --version | head -n1))" >&2
