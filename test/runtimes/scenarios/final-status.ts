/** How a final status reaches the caller, per client: the check every scenario shares. */
import type { CallRecord, ClientName } from '../protocol.ts';
import type { CheckContext } from '../scenario.ts';

/** ky (`HTTPError`) and axios (`validateStatus`) reject a final status >= 400; fetch resolves. */
const statusesReject = (client: ClientName): boolean => client !== 'fetch';

/** The call ended with `status`, as this client hands it to the caller, with `body` when given. */
export const expectFinalStatus = (
  { expect, client }: CheckContext,
  call: CallRecord | undefined,
  status: number,
  body?: string,
): void => {
  expect(call, 'the scenario made this call').toBeDefined();
  const kind = status >= 400 && statusesReject(client) ? 'http-error' : 'response';
  expect({ kind: call?.kind, status: call?.status, error: call?.error }).toMatchObject({ kind, status });
  if (body !== undefined) expect(call?.body).toBe(body);
};

/** The one call a single-request scenario made. */
export const onlyCall = ({ expect, result }: CheckContext): CallRecord => {
  expect(result.calls).toHaveLength(1);
  return result.calls[0]!;
};
