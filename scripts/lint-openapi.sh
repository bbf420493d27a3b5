#!/usr/bin/env bash
# OpenAPI lint: runs Redocly CLI's recommended ruleset on Cairn's OpenAPI document.
# Exits non-zero on any error (warnings are printed but do not fail).
#
#   scripts/lint-openapi.sh http://127.0.0.1:8080/openapi.json
#   scripts/lint-openapi.sh path/to/openapi.json
set -euo pipefail

SRC=${1:?usage: $0 OPENAPI_URL_OR_FILE}
REDOCLY_VERSION=2.77.0
export REDOCLY_TELEMETRY=off

if [[ $SRC == http://* || $SRC == https://* ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # Pretty-printed, so the line numbers in findings mean something.
  curl -fsS "$SRC" | python3 -m json.tool > "$tmp/openapi.json"
  SRC=$tmp/openapi.json
fi
npx --yes "@redocly/cli@$REDOCLY_VERSION" lint "$SRC"
