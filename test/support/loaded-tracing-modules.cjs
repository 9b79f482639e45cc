// Preloaded (`node --require`) by test/tracing.test.ts: at exit, prints the tracing packages
// the process loaded. OpenTelemetry's API is left out: prom-client loads it whatever is set.
process.on('exit', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const name = /node_modules\/(@opentelemetry\/[^/]+|@prisma\/instrumentation)\//.exec(file)?.[1];
    if (name && name !== '@opentelemetry/api') packages.add(name);
  }
  process.stderr.write(`tracing modules loaded: ${JSON.stringify([...packages].sort())}\n`);
});
