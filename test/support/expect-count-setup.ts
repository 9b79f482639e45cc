import { afterEach, expect } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** The test's `expect` calls, for the run's summary line (test/support/summary-reporter.ts). */
    expectCalls?: number;
  }
}

// A setup file (vitest.config.ts): each test's expect calls, counted by vitest, kept on the test for the reporter.
afterEach((context) => {
  context.task.meta.expectCalls = expect.getState().assertionCalls;
});
