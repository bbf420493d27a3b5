#!/usr/bin/env bash
# Runs every fuzz target of the project, one after the other, for FUZZTIME
# each (default 3s): the packages are those whose tests declare a
# `func Fuzz…`, and `go test -list` names their targets. A failing input is
# written under the package's testdata/fuzz, where plain `go test` replays
# it from then on.
#
#   scripts/fuzz.sh                 # every target, 3s each (.ci/run)
#   FUZZTIME=1m scripts/fuzz.sh     # longer (make fuzz)
#   scripts/fuzz.sh ./guards/...    # only these packages
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-3s}"
GO="${GO:-go}"
patterns=("$@")
[ ${#patterns[@]} -gt 0 ] || patterns=(./...)

# Packages whose test files declare a fuzz target, found without building.
mapfile -t pkgs < <(
  "$GO" list -f '{{.Dir}}|{{.ImportPath}}|{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' "${patterns[@]}" |
    while IFS='|' read -r dir path files; do
      for f in $files; do
        if grep -q '^func Fuzz' "$dir/$f"; then echo "$path"; break; fi
      done
    done
)

ran=0
failed=()
for pkg in "${pkgs[@]}"; do
  for target in $("$GO" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($FUZZTIME)"
    if ! "$GO" test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"; then
      failed+=("$pkg $target")
    fi
    ran=$((ran + 1))
  done
done

echo "fuzz: $ran target(s) run for $FUZZTIME each"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: failed: %s\n' "${failed[@]}"
  exit 1
fi
