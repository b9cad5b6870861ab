/**
 * An invited retry: a 429 retried at the time the server gave (`Retry-After`, a rate-limit reset),
 * not at the backoff's or a forced retry's. The server is up and asked for the request again, at a
 * time it chose: the retry budget charges no token for it, and the herd line lines such retries up.
 */
import type { AttemptOutcome, Decision } from '../decide.ts';

/** Whether `decision` retries `outcome` as the server invited it (see the module's comment). */
export const invited = (
  { status }: AttemptOutcome,
  decision: Decision,
): decision is Extract<Decision, { readonly retry: true }> =>
  decision.retry && status === 429 && decision.delaySource !== 'backoff' && decision.delaySource !== 'forced';
