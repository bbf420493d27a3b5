// A host of MCP App views as a page runs one: bundled with esbuild (the
// browser test builds it), it connects the TypeScript SDK v2 client to the
// MCP endpoint named in the page's address (#url=…&token=…&trip=…, or
// tool=…&args=… for another tool), declaring the MCP Apps extension; it
// calls get_trip (or that tool), reads the view the
// tool links to, and shows it in a sandboxed frame through the extension's
// host bridge (AppBridge), which hands the view the result and carries the
// view's tool calls to the server. What it met goes into #host (or #error):
// the link, the view's size, how long the view took to draw, the calls.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';

const params = new URLSearchParams(location.hash.slice(1));
const report = { calls: [] };
const out = (id, value) => {
  let el = document.getElementById(id);
  if (!el) {
    el = document.createElement('pre');
    el.id = id;
    document.body.appendChild(el);
  }
  el.textContent = JSON.stringify(value);
};

try {
  const client = new Client({ name: 'cairn-app-host', version: '1.0.0' }, {
    versionNegotiation: { mode: 'auto' },
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  const transport = new StreamableHTTPClientTransport(new URL(params.get('url')), {
    requestInit: { headers: { Authorization: `Bearer ${params.get('token')}` } },
  });
  await client.connect(transport);
  report.protocolVersion = client.getNegotiatedProtocolVersion();
  const { tools } = await client.listTools();
  const name = params.get('tool') || 'get_trip';
  const args = params.get('args') ? JSON.parse(params.get('args')) : { id: params.get('trip') };
  const tool = tools.find((t) => t.name === name);
  report.resourceUri = tool?._meta?.ui?.resourceUri;
  const read = await client.readResource({ uri: report.resourceUri });
  const html = read.contents[0].text;
  report.viewBytes = html.length;
  report.mimeType = read.contents[0].mimeType;
  const result = await client.callTool({ name, arguments: args });

  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.width = params.get('width') || '640px';
  frame.style.height = '600px';
  frame.style.border = '1px solid #ccc';
  const bridge = new AppBridge(client, { name: 'cairn-app-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {} },
    { hostContext: { theme: params.get('theme') || 'light', locale: 'en-GB', displayMode: 'inline' } });
  const handed = new Promise((resolve) => {
    bridge.oninitialized = async () => {
      await bridge.sendToolInput({ arguments: args });
      report.sentAt = performance.now();
      await bridge.sendToolResult(result);
      resolve();
    };
  });
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height + 4}px`;
    if (report.sentAt && report.drawnMs === undefined) report.drawnMs = performance.now() - report.sentAt;
    out('host', report);
  };
  report.frameAt = performance.now();
  document.body.appendChild(frame);
  frame.srcdoc = html;
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  // The view's own tool calls, as the bridge receives them: noted, and
  // passed on to the server unchanged.
  bridge.oncalltool = async (p) => {
    const r = await client.callTool(p);
    report.calls.push({ name: p.name, arguments: p.arguments, isError: r.isError ?? false });
    out('host', report);
    return r;
  };
  await handed;
  out('host', report);
} catch (e) {
  out('error', String(e?.stack ?? e));
}
