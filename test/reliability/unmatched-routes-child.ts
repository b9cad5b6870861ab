/**
 * Run by `careless-mistakes.test.ts` in a Node process of its own, which ends by itself: a policy
 * with three route rules, two of which match none of the requests it begins (one of them because
 * it was written under a base URL the request does not have). The development build tells, as the
 * process ends, which rules matched nothing.
 */
import { createRetryPolicy } from '@jitterbug/core';
import { finishRun } from '../../packages/core/src/sequence-end.ts';

const policy = createRetryPolicy({
  routes: [{ match: '/reports/*' }, { match: 'GET /health', name: 'health' }, { match: 'POST /reprots' }],
});
for (const path of ['/reports/1', '/reports/2', '/api/health']) {
  finishRun(
    policy.begin({ method: 'GET', url: `https://api.example.com${path}` }),
    'success',
    200,
    undefined,
    true,
  );
}
// A policy whose every rule matched is not told of.
const used = createRetryPolicy({ routes: [{ match: '/a' }] });
finishRun(used.begin({ method: 'GET', url: 'https://api.example.com/a' }), 'success', 200, undefined, true);
