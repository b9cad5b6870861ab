/**
 * `examples/otel-traces.ts` against the local flaky server: what the server saw, and that the traces
 * and metrics it prints say what the README promises (delays are random there: lines are matched
 * without them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FlakyServer, startFlakyServer } from '../../../examples/flaky-server.ts';
import { main } from '../../../examples/otel-traces.ts';

describe('examples/otel-traces.ts', () => {
  let server: FlakyServer;
  beforeEach(async () => {
    server = await startFlakyServer();
  });
  afterEach(() => server.close());

  it('prints numbered resends, retry and give-up events, and the metrics', async () => {
    const lines: string[] = [];
    await main(server, (line) => lines.push(line));

    expect(server.hits.get('GET /orders/1')).toBe(3);
    expect(server.hits.get('GET /flaky-connection')).toBe(2);
    expect(server.hits.get('POST /payments/p-1')).toBe(1);
    expect(server.hits.get('GET /slow-down')).toBe(1);
    expect(server.hits.get('GET /down/d-1')).toBe(3);
    expect(server.hits.get('GET /down/d-2')).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain('load order  http.request.resend_count=2');
    expect(text).toContain('GET /orders/1 -> 200  http.request.resend_count=2');
    expect(text).toContain('GET /flaky-connection -> 200  http.request.resend_count=1');
    expect(text).toContain('jitterbug.give_up.reason=retry-after-too-long');
    expect(text).toContain('jitterbug.give_up.reason=budget-exhausted');
    expect(lines).toContain(
      '      {http.request.method=GET jitterbug.retry.reason=status http.response.status_code=503} 4',
    );
    expect(lines).toContain(
      '      {http.request.method=GET jitterbug.retry.reason=error error.type=UND_ERR_SOCKET} 1',
    );
    expect(lines).toContain('      {jitterbug.budget.name=outage} 0');
  });
});
