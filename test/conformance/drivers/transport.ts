/**
 * What each client needs to reach the scripted server over a transport: undici `Agent` options
 * (undici 7 and 8 alike) trusting the server's certificate, with HTTP/2 allowed for `h2`.
 */
import { trustingAgentOptions } from '../../support/tls.ts';
import type { Transport } from '../driver.ts';

/** undici `Agent` options for `transport` (none for plain HTTP). */
export const agentOptions = (
  transport: Transport | undefined,
): { allowH2?: boolean; connect?: object; bodyTimeout?: number } => {
  const timeout = transport?.bodyTimeoutMs === undefined ? {} : { bodyTimeout: transport.bodyTimeoutMs };
  if (!transport || transport.name === 'http') return timeout;
  if (!transport.ca) throw new TypeError(`the ${transport.name} transport needs the server's certificate`);
  return trustingAgentOptions(transport.ca, { allowH2: transport.name === 'h2', ...timeout });
};
