// A streamed upload to POST /api/blobs on a fresh connection, with the body's length declared (the
// node can refuse an oversized body before reading it). Shared by the big-blob tests.
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';

export function uploadStream(url: string, key: string, body: NodeJS.ReadableStream, bytes: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/blobs`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain', 'content-length': String(bytes) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve({ status: res.statusCode!, body: JSON.parse(text) }); } catch (e) { reject(e); } });
    });
    req.on('error', reject);
    pipeline(body, req).catch(reject);
  });
}
