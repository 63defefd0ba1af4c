// `npm start`: the node on the embedded store with DESIGN §3 defaults.
import { serveOrExit } from './serve.ts';

await serveOrExit();
