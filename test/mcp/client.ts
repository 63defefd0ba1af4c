// MCP clients for the tests: the SDK v2 client pinned to the 2026-07-28 revision or speaking the
// 2025 handshake, and raw JSON-RPC over fetch.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

/** An SDK v2 client on /api/mcp: `modern` pins 2026-07-28 (server/discover, no fallback),
 * `legacy` performs the 2025 initialize handshake. */
export async function connect(base: string, era: 'modern' | 'legacy', key?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' }, {
    versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' },
  });
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', base), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One JSON-RPC POST; the answer's message whether it came as JSON or as one SSE event. */
export async function rpc(base: string, message: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; message: any; text: string }> {
  const res = await fetch(new URL('/api/mcp', base), { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(message) });
  const text = await res.text();
  let msg: any = null;
  try {
    msg = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : JSON.parse(text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).filter((d) => d.trim()).at(-1) ?? 'null');
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, message: msg, text };
}

/** The `_meta` envelope a 2026-07-28 request carries. */
export const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
