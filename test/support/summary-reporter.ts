import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends the run with plain lines that any CI can read: `Tests: N passed, N failed, N
 * skipped, N expect calls` (each test's count comes from test/support/expect-count-setup.ts),
 * then the same per project, since a file of provider-independent tests runs in one only.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const blank = () => ({ passed: 0, failed: 0, skipped: 0, expects: 0 });
    const total = blank();
    const byProject = new Map<string, ReturnType<typeof blank>>();
    for (const module of modules) {
      const project = module.project.name || 'default';
      const count = byProject.get(project) ?? byProject.set(project, blank()).get(project)!;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        for (const c of [total, count]) {
          c.expects += test.meta().expectCalls ?? 0;
          if (state === 'passed') c.passed += 1;
          else if (state === 'failed') c.failed += 1;
          else c.skipped += 1;
        }
      }
    }
    const line = (c: ReturnType<typeof blank>) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped, ${c.expects} expect calls`;
    process.stdout.write(`\nTests: ${line(total)}\n`);
    for (const [project, c] of [...byProject].sort()) process.stdout.write(`  ${project}: ${line(c)}\n`);
  }
}
