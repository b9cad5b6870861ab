/**
 * The runtime scenarios, one list shared by every runtime and client. A scenario that cannot apply
 * somewhere says where and why in its `notApplicable`; that is printed with the matrix.
 */
import type { Scenario } from '../scenario.ts';
import { abortDuringWait } from './abort-during-wait.ts';
import { betweenAttempts } from './between-attempts.ts';
import { forcedRetry } from './forced-retry.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { kyTimeoutRetryAfter } from './ky-timeout-retry-after.ts';
import { networkFailureGet } from './network-failure-get.ts';
import { networkFailurePost } from './network-failure-post.ts';
import { networkFailurePut } from './network-failure-put.ts';
import { perCallOverride } from './per-call-override.ts';
import { postNotRetried } from './post-not-retried.ts';
import { retry503 } from './retry-503.ts';
import { retryAfter429 } from './retry-after-429.ts';
import { routes } from './routes.ts';
import { status400 } from './status-400.ts';
import { streamBody } from './stream-body.ts';

export const scenarios: readonly Scenario[] = [
  retry503,
  retryAfter429,
  status400,
  postNotRetried,
  idempotencyKey,
  abortDuringWait,
  streamBody,
  routes,
  networkFailureGet,
  networkFailurePost,
  networkFailurePut,
  forcedRetry,
  perCallOverride,
  betweenAttempts,
  kyTimeoutRetryAfter,
];

const byId = new Map<string, Scenario>();
for (const scenario of scenarios) {
  if (byId.has(scenario.id)) throw new Error(`two runtime scenarios with the id ${scenario.id}`);
  byId.set(scenario.id, scenario);
}

export const scenarioById = (id: string): Scenario => {
  const scenario = byId.get(id);
  if (!scenario) throw new Error(`no runtime scenario ${id}`);
  return scenario;
};
