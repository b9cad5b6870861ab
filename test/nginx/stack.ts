/**
 * One scenario's servers: the Node backend (the scripted server: it records every request that
 * reaches it, and answers per path as scripted) behind a fresh nginx of the scenario's own, so that
 * nginx's access log, its rate-limit state and the backend's counts hold that scenario alone.
 */
import type { NginxSetup } from '../support/nginx/config.ts';
import { type RunningNginx, startNginx } from '../support/nginx/nginx.ts';
import { type HttpScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

export interface Stack {
  readonly nginx: RunningNginx;
  readonly backend: HttpScriptedServer;
  stop(): Promise<void>;
}

export const startStack = async (setup: NginxSetup): Promise<Stack> => {
  const backend = await startScriptedServer();
  let nginx: RunningNginx;
  try {
    nginx = await startNginx(setup, { backend: backend.url });
  } catch (error) {
    await backend.close();
    throw error;
  }
  return {
    nginx,
    backend,
    async stop() {
      await nginx.stop();
      await backend.close();
    },
  };
};
