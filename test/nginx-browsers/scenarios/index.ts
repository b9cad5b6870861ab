/** The browser scenarios against nginx, in the order each client runs them. */
import type { ClientName } from '../protocol.ts';
import type { ScenarioContext } from '../scenario.ts';
import { burstCrossOrigin, burstHidden, burstSameOrigin } from './burst.ts';
import { refusedPreflight } from './refused-preflight.ts';
import { ROTATION_OPTIONS, rotation } from './rotation.ts';
import { upstreamDown } from './upstream-down.ts';

export interface NginxScenario {
  readonly title: string;
  /** The clients it is for (default: all). */
  readonly clients?: readonly ClientName[];
  readonly timeoutMs: number;
  run(ctx: ScenarioContext): Promise<void>;
}

export const SCENARIOS: readonly NginxScenario[] = [
  {
    title: '429 burst, same-origin: 20 of 20 end 200, each retry after the Retry-After second',
    timeoutMs: 30_000,
    run: burstSameOrigin,
  },
  {
    title: '429 burst, cross-origin with Retry-After exposed: 20 of 20 end 200 at the server’s pace',
    timeoutMs: 30_000,
    run: burstCrossOrigin,
  },
  {
    title: '429 burst, cross-origin with Retry-After not exposed: the retries say the delay was unread',
    timeoutMs: 30_000,
    run: burstHidden,
  },
  {
    title:
      'a preflight refused by an edge limiter: GET and keyed POST retried to maxAttempts, POST without a key sent once',
    timeoutMs: 30_000,
    run: refusedPreflight,
  },
  {
    title: '502 same-origin: GET and keyed POST sent maxAttempts times, POST without a key once',
    timeoutMs: 30_000,
    run: (ctx) => upstreamDown(ctx, 'site'),
  },
  {
    title: '502 cross-origin: GET and keyed POST sent maxAttempts times, POST without a key once',
    timeoutMs: 30_000,
    run: (ctx) => upstreamDown(ctx, 'api'),
  },
  {
    title: 'rotation: 20 rounds of 40 at once, nothing pending, every GET 200, no POST twice',
    timeoutMs: 180_000,
    run: (ctx) => rotation(ctx, ROTATION_OPTIONS),
  },
  {
    title: 'rotation with forcedRetries (ky clones each request itself): nothing pending in 20 rounds',
    clients: ['ky'],
    timeoutMs: 180_000,
    run: (ctx) => rotation(ctx, ROTATION_OPTIONS, true),
  },
];
