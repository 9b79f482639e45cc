import { setFlagsFromString } from 'node:v8';

// Imported first by src/main.ts, before any WebAssembly is compiled. Prisma's query
// compiler is a WebAssembly module that runs only on a query-plan cache miss; V8's
// optimizing tier for it held ~45 MB of the resident set (208 -> 163 MB at idle) and
// bought no throughput in `npm run bench`. Liftoff, the baseline tier, runs it alone.
setFlagsFromString('--no-wasm-tier-up');
setFlagsFromString('--no-wasm-dynamic-tiering');
