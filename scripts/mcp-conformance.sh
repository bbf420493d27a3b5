#!/usr/bin/env bash
# MCP conformance: runs the official suite (@modelcontextprotocol/conformance) against
# a running Cairn MCP endpoint, with its bearer token, and fails if a scenario fails.
#
#   scripts/mcp-conformance.sh http://127.0.0.1:8080/mcp cairn_pat_...
#
# Only the scenarios that apply to a tools-only product server run:
#   generic    server-initialize ping tools-list server-sse-multiple-streams dns-rebinding-protection
#   capability logging-set-level resources-list prompts-list (the SDK answers empty lists)
# Not run: the fixture scenarios (they call the suite's own tools, prompts and resources:
# tools-call-*, resources-read-*, prompts-get-*, elicitation-*, json-schema-2020-12,
# server-sse-polling, resources-(un)subscribe) and completion-complete (Cairn declares no
# completions capability). Override with SCENARIOS="a b c".
# dns-rebinding-protection only holds for a loopback URL (go-sdk guards loopback listeners).
# The suite needs Node 22: node@22.23.3 and the suite are installed from npm into
# ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-checks on first use.
set -euo pipefail

URL=${1:?usage: $0 MCP_URL TOKEN}
TOKEN=${2:?usage: $0 MCP_URL TOKEN}
SCENARIOS=${SCENARIOS:-"server-initialize ping tools-list server-sse-multiple-streams
  dns-rebinding-protection logging-set-level resources-list prompts-list"}
SUITE_VERSION=0.1.16
NODE_VERSION=22.23.3

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cairn-checks
NODE=$CACHE/node_modules/.bin/node
SUITE=$CACHE/node_modules/@modelcontextprotocol/conformance
if [[ ! -x $NODE ]] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$SUITE/package.json" 2>/dev/null; then
  echo "installing node@$NODE_VERSION and the conformance suite into $CACHE" >&2
  mkdir -p "$CACHE"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
    "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$SUITE_VERSION" >&2
fi

# The suite has no bearer-token option: this preload adds the header to every request
# (fetch and undici share Node's global dispatcher) whose origin is the target's.
PRELOAD=$CACHE/bearer-preload.mjs
cat > "$PRELOAD" <<'JS'
const value = `Bearer ${process.env.MCP_BEARER_TOKEN}`;
const target = new URL(process.env.MCP_BEARER_URL).origin;
await fetch('data:,'); // loads Node's bundled undici, which installs the global dispatcher
const key = Symbol.for('undici.globalDispatcher.1');
const base = globalThis[key];
if (!base) throw new Error('bearer preload: no global dispatcher');
const strip = (h) => h.filter(([k]) => String(k).toLowerCase() !== 'authorization');
function withAuth(h) {
  if (h == null) return { authorization: value };
  if (Array.isArray(h) && !Array.isArray(h[0])) { // flat [k1, v1, k2, v2, ...]
    const pairs = [];
    for (let i = 0; i < h.length; i += 2) pairs.push([h[i], h[i + 1]]);
    return [...strip(pairs), ['authorization', value]].flat();
  }
  const pairs = Array.isArray(h) || typeof h[Symbol.iterator] === 'function' ? [...h] : Object.entries(h);
  return Object.fromEntries([...strip(pairs), ['authorization', value]]);
}
const wrapped = Object.create(base);
wrapped.dispatch = (opts, handler) => {
  let origin = '';
  try { origin = new URL(String(opts.origin)).origin; } catch {}
  return base.dispatch(origin === target ? { ...opts, headers: withAuth(opts.headers) } : opts, handler);
};
globalThis[key] = wrapped;
JS

failed=()
for s in $SCENARIOS; do
  echo "=== $s"
  if ! NO_COLOR=1 MCP_BEARER_TOKEN=$TOKEN MCP_BEARER_URL=$URL \
      timeout 120 "$NODE" --import "$PRELOAD" "$SUITE/dist/index.js" server --url "$URL" --scenario "$s"; then
    failed+=("$s")
  fi
done
n=$(wc -w <<<"$SCENARIOS")
echo "conformance: $((n - ${#failed[@]})) passed, ${#failed[@]} failed${failed:+ (${failed[*]})}"
[[ ${#failed[@]} -eq 0 ]]
