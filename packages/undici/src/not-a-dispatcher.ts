/**
 * What `retryInterceptor()` returns, given where a dispatcher goes: undici tells a dispatcher by its
 * methods (`request()` and `fetch()` call `dispatch`, `setGlobalDispatcher` checks that it is a
 * function, a `RetryAgent` calls it and `close`/`destroy`), so the interceptor carries them as
 * getters that throw the `TypeError` saying how to compose it, before any request is sent, where
 * undici would say `this.dispatch is not a function` or `Argument agent must implement Agent`.
 */

/** The message: what to write instead. */
export const NOT_A_DISPATCHER_MESSAGE =
  'jitterbug: retryInterceptor() returns an interceptor, not a dispatcher: compose it onto an agent, new Agent().compose(retryInterceptor(options)), and give that agent where a dispatcher goes (request(url, { dispatcher }), fetch(url, { dispatcher }), setGlobalDispatcher(dispatcher), new RetryAgent(dispatcher))';

const refuse = (): never => {
  throw new TypeError(NOT_A_DISPATCHER_MESSAGE);
};

const method: PropertyDescriptor = { get: refuse, enumerable: false, configurable: false };

/** `interceptor`, with the dispatcher's methods that undici calls refusing with the fix. */
export const notADispatcher = <T extends object>(interceptor: T): T =>
  Object.defineProperties(interceptor, { dispatch: method, close: method, destroy: method });
