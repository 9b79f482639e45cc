import { setFlagsFromString } from 'node:v8';

// Memory, measured by `npm run bench` (docs/performance.md). Imported first by
// src/main.ts, before any WebAssembly is compiled or the heap has grown.

// Prisma's query compiler is a WebAssembly module that runs only on a query-plan cache
// miss; V8's optimizing tier for it held ~45 MB (idle 208 -> 163 MB) and bought no
// throughput. Liftoff, the baseline tier, runs it alone.
setFlagsFromString('--no-wasm-tier-up');
setFlagsFromString('--no-wasm-dynamic-tiering');

// The old generation grows by 30% after a full collection instead of V8's dynamic factor
// (up to 4x for a fast-allocating process): after the bench load 194 MB instead of
// 295 MB, at ~15% more CPU on a 100-deal GraphQL page and no change on the other requests.
setFlagsFromString('--heap-growing-percent=30');
