import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

// CI's log reader does not recognise vitest's own summary: print the plain closing line it reads.
// With JITTERBUG_SUMMARY_FILE set (scripts/test.sh runs vitest more than once), the counts are
// appended there instead, and the script prints the one combined line at the very end.
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const file = process.env.JITTERBUG_SUMMARY_FILE;
    if (file) appendFileSync(file, `${passed} ${failed} ${skipped}\n`);
    else process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
