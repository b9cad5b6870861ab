/** The dispatcher of each undici variant (shared by the `request()` and `fetch()` clients). */
import type { Dispatcher } from 'undici';
import { JITTERBUG_OPTIONS, MAX_ATTEMPTS, RETRY_STATUS_CODES } from '../config.ts';
import type { VariantKind } from './types.ts';

type Interceptor = Dispatcher.DispatcherComposeInterceptor;

/** The interceptor a variant adds to the agent (`undefined` for the raw agent). */
export const undiciInterceptor = async (kind: VariantKind): Promise<Interceptor | undefined> => {
  if (kind === 'jitterbug') {
    const { retryInterceptor } = await import('@jitterbug/undici');
    return retryInterceptor(JITTERBUG_OPTIONS) as unknown as Interceptor;
  }
  if (kind === 'peer') {
    const { interceptors } = await import('undici');
    return interceptors.retry({
      maxRetries: MAX_ATTEMPTS - 1,
      minTimeout: 0,
      maxTimeout: 0,
      timeoutFactor: 2,
      statusCodes: RETRY_STATUS_CODES,
    });
  }
  return undefined;
};

/** A variant's dispatcher: its interceptor composed on `base` (default: a new `Agent`). */
export const undiciDispatcher = async (
  kind: VariantKind,
  base?: Dispatcher,
): Promise<{ dispatcher: Dispatcher; close: () => Promise<void> }> => {
  const agent = base ?? new (await import('undici')).Agent();
  const interceptor = await undiciInterceptor(kind);
  const dispatcher: Dispatcher = interceptor ? agent.compose(interceptor) : agent;
  return { dispatcher, close: () => agent.close() };
};
