// Blob storage on PostgreSQL (docs/jobs.md "Blobs"): 1 MiB bytea rows (TOAST compressed or
// not) against large objects (lo_put/lo_get), writing and reading 64 MiB of generated CNF text.
// Needs DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); works in its own schema.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { cnfStream } from '../test/jobs/cnf-stream.ts';
const c = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
await c.connect();
await c.query('CREATE SCHEMA IF NOT EXISTS blobmeasure; SET search_path = blobmeasure');
const N = 64;
// CNF text chunks
const chunks: Buffer[] = [];
const g = cnfStream(N * 1024 * 1024);
let acc = Buffer.alloc(0);
for await (const b of g.stream) { acc = Buffer.concat([acc, b as Buffer]); while (acc.length >= 1048576) { chunks.push(acc.subarray(0, 1048576)); acc = acc.subarray(1048576); } }
async function run(label: string, fn: (b: Buffer, i: number) => Promise<unknown>) {
  const t = performance.now();
  for (let i = 0; i < chunks.length; i++) await fn(chunks[i], i);
  const s = (performance.now() - t) / 1000;
  console.log(label, (chunks.length / s).toFixed(1), 'MB/s');
}
for (const storage of ['EXTENDED', 'EXTERNAL']) {
  await c.query('DROP TABLE IF EXISTS ch; CREATE TABLE ch (id text, seq int, data bytea, primary key (id, seq))');
  await c.query(`ALTER TABLE ch ALTER COLUMN data SET STORAGE ${storage}`);
  await run(`bytea rows, ${storage}`, (b, i) => c.query('INSERT INTO ch VALUES ($1,$2,$3)', ['u', i, b]));
  const t = performance.now();
  for (let i = 0; i < chunks.length; i++) await c.query('SELECT data FROM ch WHERE id=$1 AND seq=$2', ['u', i]);
  console.log('  read', (chunks.length / ((performance.now() - t) / 1000)).toFixed(1), 'MB/s');
}
{
  const [{ oid }] = (await c.query('SELECT lo_create(0) AS oid')).rows;
  await run('large object lo_put', (b, i) => c.query('SELECT lo_put($1, $2, $3)', [oid, i * 1048576, b]));
  const t = performance.now();
  for (let i = 0; i < chunks.length; i++) await c.query('SELECT lo_get($1, $2, $3) AS d', [oid, i * 1048576, 1048576]);
  console.log('  read', (chunks.length / ((performance.now() - t) / 1000)).toFixed(1), 'MB/s');
  await c.query('SELECT lo_unlink($1)', [oid]);
}
await c.query('DROP SCHEMA blobmeasure CASCADE');
await c.end();
