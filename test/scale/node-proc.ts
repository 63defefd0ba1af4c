// One node process for the scale-out tests and the load benchmark: `serve()` exactly as
// `npm start` runs it (SIGTERM drains), configured by the environment the harness passes
// (PORT, DATABASE_URL + SVC_DATABASE_SCHEMA or SVC_DATA_DIR, SVC_SEAL_SECRET, …). Prints one
// line `{"svcNodeReady": {url, nodeId, pid}}` on stdout when it listens.
import { serve } from '../../src/serve.ts';

const { app, http } = await serve(process.env);
const addr = http.server.address() as { port: number };
process.stdout.write(JSON.stringify({ svcNodeReady: { url: `http://127.0.0.1:${addr.port}`, nodeId: app.nodeId, pid: process.pid, store: app.db.backend } }) + '\n');
