// The matrix the summary reporter prints under `make test`: its layout, from made-up results.
import { describe, expect, it } from 'vitest';
import { formatMatrix, type MatrixSuiteMeta, type MatrixTest } from './matrix.ts';

const test = (
  runtime: MatrixTest['meta']['runtime'],
  client: MatrixTest['meta']['client'],
  state: MatrixTest['state'],
  extra: Partial<MatrixTest['meta']> = {},
): MatrixTest => ({ meta: { runtime, client, scenario: 'retry-503', ...extra }, state });

describe('formatMatrix', () => {
  it('prints nothing when no runtime test ran', () => {
    expect(formatMatrix([], [])).toBe('');
  });

  it('counts per runtime and client, names failures and runtimes that did not start, lists what was left out and found', () => {
    const suites: MatrixSuiteMeta[] = [
      { runtime: 'bun', label: 'Bun', clientScenarios: [], notApplicable: [] },
      {
        runtime: 'chromium',
        label: 'Chromium',
        clientScenarios: [{ scenario: 'forced-retry', clients: ['ky'] }],
        notApplicable: [{ client: 'axios-xhr', scenario: 'stream-body', why: 'no reason at all' }],
      },
    ];
    const tests = [
      test('bun', 'fetch', 'passed', { version: 'Bun/1.4.5', findings: ['bun throws its own codes'] }),
      test('bun', 'fetch', 'failed', { version: 'Bun/1.4.5' }),
      test('bun', 'ky', 'passed', { version: 'Bun/1.4.5' }),
      test('chromium', 'axios-xhr', 'failed'),
      test('chromium', 'axios-xhr', 'skipped'),
    ];
    expect(formatMatrix(tests, suites).split('\n')).toEqual([
      'Runtime matrix: scenarios passed/run per runtime and client (2 of 5 passed)',
      'runtime   fetch         ky   axios-xhr               axios-fetch  all                     version',
      '--------  ------------  ---  ----------------------  -----------  ----------------------  -------------',
      'bun       1/2 1 FAILED  1/1  -                       -            2/3 1 FAILED            Bun/1.4.5',
      'chromium  -             -    0/2 1 FAILED 1 not run  -            0/2 1 FAILED 1 not run  did not start',
      'Scenarios for some clients only: forced-retry (ky)',
      '',
      'Left out (the scenario cannot apply there):',
      '  chromium/axios-xhr stream-body: no reason at all',
      '',
      'Findings (what each runtime and client showed):',
      '  bun throws its own codes',
      '',
    ]);
  });
});
