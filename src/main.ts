// `npm start`: the node on the embedded store with DESIGN §3 defaults.
import { serve } from './serve.ts';

await serve();
