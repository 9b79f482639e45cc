// Loaded into a service process with `node --import` (test/idempotency-crash.test.ts): the
// first request to reach the point CRASH_AT names (src/http/crash-points.ts) kills the
// process there with SIGKILL, as a crash would: nothing after it runs, nothing is flushed.
globalThis.salesgraphReached = (point) => {
  if (point === process.env.CRASH_AT) process.kill(process.pid, 'SIGKILL');
};
