// A local stand-in for a literature API: node:http on 127.0.0.1 with an ephemeral port that
// answers from a route function with fixtures written in the API's real format. It records
// every request so a test can check the paths, parameters and headers an adapter sent.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** never answer (the client must give up on its own deadline) */
  hang?: boolean;
  /** close the connection without an answer */
  destroy?: boolean;
}

export interface SeenRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** the raw request target, as sent */
  url: string;
}

export type Route = (req: SeenRequest, n: number) => Reply | undefined;

export interface Replay {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

export const json = (name: string, status = 200, headers: Record<string, string> = {}): Reply =>
  ({ status, body: fixture(name), headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
export const xml = (name: string, status = 200): Reply =>
  ({ status, body: fixture(name), headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
export const text = (body: string, status: number, type = 'text/plain'): Reply => ({ status, body, headers: { 'content-type': type } });

export async function replay(route: Route): Promise<Replay> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const seen: SeenRequest = { path: decodeURIComponent(u.pathname), query: u.searchParams, headers: req.headers, url: req.url ?? '' };
    requests.push(seen);
    let r: Reply | undefined;
    try { r = route(seen, requests.length); } catch (e) { r = text(String(e), 599); }
    if (!r) r = text('no route', 404);
    if (r.hang) return; // keep the socket open, say nothing
    if (r.destroy) { req.socket.destroy(); return; }
    res.writeHead(r.status ?? 200, r.headers ?? {});
    res.end(r.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that was free a moment ago and now has nobody listening (connection refused). */
export async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
