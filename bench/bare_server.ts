// The baseline: a bare Fastify route that returns the same JSON as a sealed protect response.
import Fastify from 'fastify';
const sample = JSON.parse(process.env.SAMPLE_JSON || '{}');
const app = Fastify();
app.post('/api/svc/protect', async () => sample);
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as any).port}` }) + '\n');
process.on('SIGTERM', async () => { await app.close(); process.exit(0); });
