// Every timer, running channel, SSE subscriber and in-flight job that live compute owns, counted
// in one place so a test (and GET /api/streams/stats, if ever wanted) can prove that nothing is
// left behind when channels close. Live code creates its timers only through `liveTimeout` and
// `liveInterval`, and counts its jobs with `jobStarted`/`jobEnded`.

export interface LiveCounts {
  timers: number;
  channels: number;
  subscribers: number;
  jobs: number;
}

const timers = new Set<NodeJS.Timeout>();
let channels = 0;
let subscribers = 0;
let jobs = 0;

/** A one-shot timer the registry knows about; the returned function cancels it. */
export function liveTimeout(fn: () => void, ms: number, opts: { unref?: boolean } = {}): () => void {
  const h: NodeJS.Timeout = setTimeout(() => { timers.delete(h); fn(); }, Math.max(0, ms));
  if (opts.unref) h.unref();
  timers.add(h);
  return () => { if (timers.delete(h)) clearTimeout(h); };
}

/** A repeating timer the registry knows about; the returned function cancels it. */
export function liveInterval(fn: () => void, ms: number): () => void {
  const h: NodeJS.Timeout = setInterval(fn, ms);
  h.unref();
  timers.add(h);
  return () => { if (timers.delete(h)) clearInterval(h); };
}

export const channelStarted = () => { channels++; };
export const channelEnded = () => { channels--; };
export const subscriberAdded = () => { subscribers++; };
export const subscriberRemoved = () => { subscribers--; };
export const jobStarted = () => { jobs++; };
export const jobEnded = () => { jobs--; };

/** What live compute holds right now, across every app in this process. */
export function liveCounts(): LiveCounts {
  return { timers: timers.size, channels, subscribers, jobs };
}
