/**
 * One scenario's servers for a reverse proxy (HAProxy, Caddy): the Node backend (the scripted
 * server: it records every request that reaches it) behind a fresh proxy of the scenario's own, so
 * that the proxy's log and the backend's counts hold that scenario alone.
 */
import type { RunningProxy } from './running-proxy.ts';
import { type HttpScriptedServer, startScriptedServer } from './scripted-server.ts';

export interface ProxyStack<P extends RunningProxy = RunningProxy> {
  readonly proxy: P;
  readonly backend: HttpScriptedServer;
  stop(): Promise<void>;
}

/** Starts the backend, then the proxy in front of it (`start` is given the backend's URL). */
export const startProxyStack = async <P extends RunningProxy>(
  start: (backend: string) => Promise<P>,
): Promise<ProxyStack<P>> => {
  const backend = await startScriptedServer();
  let proxy: P;
  try {
    proxy = await start(backend.url);
  } catch (error) {
    await backend.close();
    throw error;
  }
  return {
    proxy,
    backend,
    async stop() {
      await proxy.stop();
      await backend.close();
    },
  };
};
