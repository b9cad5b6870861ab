import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { formatMatrix, type MatrixSuiteMeta, type MatrixTest } from '../test/runtimes/matrix.ts';

// CI's log reader does not recognise vitest's own summary: print the plain closing line it reads.
// With JITTERBUG_SUMMARY_FILE set (scripts/test.sh runs vitest more than once), the counts are
// appended there instead, and the script prints the one combined line at the very end.
// When runtime tests ran (test/runtimes/), their matrix is printed first: which runtime ran how
// many scenarios on which client, what was left out and why, and what each runtime showed.
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const matrixTests: MatrixTest[] = [];
    const matrixSuites: MatrixSuiteMeta[] = [];
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
      for (const suite of module.children.allSuites()) {
        const meta = suite.meta().runtimeMatrixSuite;
        if (meta) matrixSuites.push(meta);
      }
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
        const meta = test.meta().runtimeMatrix;
        if (meta) matrixTests.push({ meta, state });
      }
    }
    const matrix = formatMatrix(matrixTests, matrixSuites);
    if (matrix) process.stdout.write(`\n${matrix}`);
    const file = process.env.JITTERBUG_SUMMARY_FILE;
    if (file) appendFileSync(file, `${passed} ${failed} ${skipped}\n`);
    else process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
