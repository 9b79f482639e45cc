import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line that any CI can read: `Tests: N passed, N failed, N
 * skipped, N expect calls` (each test's count comes from the setup file's afterEach).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const count = { passed: 0, failed: 0, skipped: 0, expects: 0 };
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        count.expects += test.meta().expectCalls ?? 0;
        if (state === 'passed') count.passed += 1;
        else if (state === 'failed') count.failed += 1;
        else count.skipped += 1;
      }
    }
    process.stdout.write(`\nTests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped, ${count.expects} expect calls\n`);
  }
}
