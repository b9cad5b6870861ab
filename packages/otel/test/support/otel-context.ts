/**
 * The context manager the SDK's Node setup installs (AsyncLocalStorage), so that the span active
 * when a request begins is the caller's, as in a real program. Installed for a test file, removed
 * after it.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

export const installContextManager = (): void => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
};

export const removeContextManager = (): void => {
  context.disable();
};
