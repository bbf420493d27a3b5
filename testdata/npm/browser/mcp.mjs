// The TypeScript SDK v2 client as a page runs it: bundled with esbuild into
// one module (the browser test builds it), it connects to the MCP endpoint
// named in the page's address (#url=…&token=…), lists the tools, calls
// list_trips and writes what it got into #result (or #error).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const params = new URLSearchParams(location.hash.slice(1));
const out = (id, value) => {
  const el = document.createElement('pre');
  el.id = id;
  el.textContent = JSON.stringify(value);
  document.body.appendChild(el);
};

try {
  const client = new Client({ name: 'cairn-browser', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(params.get('url')), {
    requestInit: { headers: { Authorization: `Bearer ${params.get('token')}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const listed = await client.callTool({ name: 'list_trips', arguments: {} });
  out('result', {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    tools: tools.map((t) => t.name),
    isError: listed.isError ?? false,
    totalItems: listed.structuredContent?.totalItems,
  });
} catch (e) {
  out('error', String(e?.stack ?? e));
}
