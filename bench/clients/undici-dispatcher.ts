/** The dispatcher of each undici variant (shared by the `request()` and `fetch()` clients). */
import type { Dispatcher } from 'undici';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS, RETRY_STATUS_CODES } from '../config.ts';
import type { VariantKind } from './types.ts';

export const undiciDispatcher = async (
  kind: VariantKind,
): Promise<{ dispatcher: Dispatcher; close: () => Promise<void> }> => {
  const { Agent, interceptors } = await import('undici');
  const agent = new Agent();
  let dispatcher: Dispatcher = agent;
  if (kind === 'jitterbug') {
    const { retryInterceptor } = await import('@jitterbug/undici');
    dispatcher = agent.compose(
      retryInterceptor(JITTERBUG_OPTIONS) as unknown as Dispatcher.DispatcherComposeInterceptor,
    );
  } else if (kind === 'peer') {
    dispatcher = agent.compose(
      interceptors.retry({
        maxRetries: MAX_ATTEMPTS - 1,
        minTimeout: 0,
        maxTimeout: 0,
        timeoutFactor: 2,
        statusCodes: RETRY_STATUS_CODES,
      }),
    );
  }
  return { dispatcher, close: () => agent.close() };
};
