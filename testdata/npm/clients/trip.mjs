// A trip's life through Cairn's /mcp, as a real TypeScript MCP client lives
// it: list the tools, read, create a trip, follow it to its digest, delete
// it through confirmation.
//
//   node trip.mjs v2|v1 URL TOKEN SOURCE_URL
//
// v2 is @modelcontextprotocol/client (2026-07-28): it follows the trip as a
// task of the tasks extension and confirms the deletion by multi
// round-trip (the elicitation answered in the retry). v1 is
// @modelcontextprotocol/sdk (2025-11-25): it polls get_trip and confirms
// with the confirmationToken. Each step is printed as one JSON line; any
// failure exits 1, naming the step.

const [flavour, url, token, sourceUrl] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${token}` };
const TASKS = 'io.modelcontextprotocol/tasks';

function step(name, detail) {
  console.log(JSON.stringify({ step: name, ...detail }));
}

function fail(name, detail) {
  console.log(JSON.stringify({ step: name, failed: true, ...detail }));
  process.exit(1);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// retry calls fn again when the request met a replica going down: a client
// retries a refused connection, as it would any network failure.
async function retry(name, fn) {
  let last;
  for (let i = 0; i < 30; i++) {
    try {
      return await fn();
    } catch (e) {
      last = e;
      const words = String(e?.message ?? e) + String(e?.cause?.code ?? '');
      if (!/ECONNREFUSED|ECONNRESET|fetch failed|socket|terminated|502|503/i.test(words)) break;
      await sleep(200);
    }
  }
  fail(name, { error: String(last?.message ?? last) });
}

function structured(res) {
  return res.structuredContent ?? {};
}

async function connect() {
  if (flavour === 'v2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client(
      { name: 'cairn-test-v2', version: '1.0.0' },
      {
        // Probe server/discover first (2026-07-28), fall back to initialize.
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} }, extensions: { [TASKS]: {} } },
      },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params ?? req;
      step('elicited', { message: params.message, impact: params._meta?.['cairn.dev/impact'] ?? null });
      return { action: 'accept', content: {} };
    });
    transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    adopt(client);
    return client;
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'cairn-test-v1', version: '1.0.0' }, { capabilities: {} });
  transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

// The SDK's Client knows no tasks (it refuses a result of type "task"), so
// the tasks extension is spoken here, over the client's own transport and
// its negotiated revision: a request is sent with the per-request _meta the
// SDK sends, and its answer taken before the Client sees it.
let transport;
const own = new Map();
let ownIds = 0;
function adopt(client) {
  const inner = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    const waiter = own.get(msg?.id);
    if (waiter === undefined) return inner?.call(transport, msg, extra);
    own.delete(msg.id);
    if (msg.error) waiter.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    else waiter.resolve(msg.result);
  };
}

async function raw(client, method, params) {
  const id = `cairn-task-${++ownIds}`;
  const answer = new Promise((resolve, reject) => own.set(id, { resolve, reject }));
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': client.getNegotiatedProtocolVersion(),
    'io.modelcontextprotocol/clientInfo': { name: 'cairn-test-v2', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { [TASKS]: {} } },
  };
  await transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } });
  return answer;
}

const client = await retry('connect', connect);
const version = client.getNegotiatedProtocolVersion?.() ?? client.getServerVersion?.()?.version;
step('connected', { protocolVersion: flavour === 'v2' ? version : '2025-11-25' });

const { tools } = await retry('tools/list', () => client.listTools());
step('tools/list', { tools: tools.map((t) => t.name) });

const listed = await retry('list_trips', () => client.callTool({ name: 'list_trips', arguments: {} }));
if (listed.isError) fail('list_trips', { result: listed });
step('list_trips', { totalItems: structured(listed).totalItems });

let id;
if (flavour === 'v2') {
  const created = await retry('create_trip', () => raw(client, 'tools/call', { name: 'create_trip', arguments: { sourceUrl } }));
  if (created.resultType !== 'task' || !created.taskId) fail('create_trip', { result: created });
  step('create_trip', { taskId: created.taskId, status: created.status });
  let task;
  for (let i = 0; i < 300; i++) {
    task = await retry('tasks/get', () => raw(client, 'tasks/get', { taskId: created.taskId }));
    step('tasks/get', { status: task.status, statusMessage: task.statusMessage });
    if (task.status !== 'working') break;
    await sleep(Math.min(task.pollIntervalMs ?? 500, 300));
  }
  if (task.status !== 'completed' || task.result?.isError) fail('task', { task });
  const digest = structured(task.result);
  if (!Array.isArray(digest.days) || digest.partial) fail('digest', { digest });
  id = digest.id;
  step('digest', { id, days: digest.days.length });
} else {
  const created = await retry('create_trip', () => client.callTool({ name: 'create_trip', arguments: { sourceUrl } }));
  if (created.isError) fail('create_trip', { result: created });
  id = structured(created).id;
  step('create_trip', { id });
  let digest;
  for (let i = 0; i < 300; i++) {
    const got = await retry('get_trip', () => client.callTool({ name: 'get_trip', arguments: { id } }));
    if (got.isError) fail('get_trip', { result: got });
    digest = structured(got);
    if (!digest.partial) break;
    await sleep(300);
  }
  if (!Array.isArray(digest.days)) fail('digest', { digest });
  step('digest', { id, days: digest.days.length });
}

const read = await retry('get_trip', () => client.callTool({ name: 'get_trip', arguments: { id } }));
if (read.isError || structured(read).id !== id) fail('get_trip', { result: read });
step('get_trip', { id, version: structured(read).version });

if (flavour === 'v2') {
  // The elicitation handler accepts; the client retries with the answer
  // and the server's requestState.
  const deleted = await retry('delete_trip', () => client.callTool({ name: 'delete_trip', arguments: { id } }));
  if (deleted.isError || !structured(deleted).deleted) fail('delete_trip', { result: deleted });
  step('delete_trip', { deleted: true, path: 'multi round-trip' });
} else {
  const asked = await retry('delete_trip', () => client.callTool({ name: 'delete_trip', arguments: { id } }));
  const tok = structured(asked).confirmation?.confirmationToken;
  if (!tok) fail('delete_trip', { result: asked });
  step('confirmation', { impact: structured(asked).confirmation.impact });
  const deleted = await retry('delete_trip', () => client.callTool({ name: 'delete_trip', arguments: { id, confirmationToken: tok } }));
  if (deleted.isError || !structured(deleted).deleted) fail('delete_trip', { result: deleted });
  step('delete_trip', { deleted: true, path: 'confirmationToken' });
}

const gone = await retry('get_trip', () => client.callTool({ name: 'get_trip', arguments: { id } }));
if (!gone.isError) fail('gone', { result: gone });
step('gone', { id });
await client.close();
