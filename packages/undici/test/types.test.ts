/** One interceptor value fits `compose()` of undici 7 and 8 without casts: `tsc` checks this file. */
import { Agent, Client } from 'undici';
import { Agent as Agent7, Pool as Pool7 } from 'undici7';
import { expect, test } from 'vitest';
import { type RetryInterceptor, retryInterceptor } from '../src/index.ts';

test('compose() of undici 8 Agent and Client, undici 7 Agent and Pool, spread or as an array', async () => {
  const shared: RetryInterceptor = retryInterceptor();
  const dispatchers = [
    new Agent().compose(shared),
    new Client('http://127.0.0.1:9').compose([shared]),
    new Agent7().compose(shared),
    new Pool7('http://127.0.0.1:9').compose(shared, retryInterceptor({ maxAttempts: 1 })),
  ];
  for (const d of dispatchers) expect(d.dispatch).toHaveLength(2);
  await Promise.all(dispatchers.map((d) => d.close()));
});
