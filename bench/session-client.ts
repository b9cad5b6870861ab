/**
 * One client process of a session (`sessions.ts`), driven over IPC: told a number, it sends that
 * many GETs, 16 in flight, and answers with their CPU time (`process.cpuUsage()`, user + system) and
 * the garbage-collection pauses among them; between blocks it sleeps while the others take their
 * turns. Argument: JSON `{ client, kind, origin }`.
 */
import { type ClientName, makeClient, type VariantKind } from './clients.ts';

export interface BlockResult {
  readonly cpuUs: number;
  readonly gcUs: number;
  readonly failures: number;
}

const setup = JSON.parse(process.argv[2] ?? '{}') as {
  client: ClientName;
  kind: VariantKind;
  origin: string;
};
const client = await makeClient(setup.client, setup.kind, setup.origin);
let gcUs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcUs += entry.duration * 1000;
}).observe({ entryTypes: ['gc'] });

const block = async (n: number): Promise<BlockResult> => {
  const [gcBefore, start] = [gcUs, process.cpuUsage()];
  let [next, failures] = [0, 0];
  const worker = async (): Promise<void> => {
    while (next++ < n) if ((await client.get('/ok')) !== 200) failures++;
  };
  await Promise.all(Array.from({ length: Math.min(16, n) }, worker));
  const { user, system } = process.cpuUsage(start);
  // GC entries are delivered after the pauses: let the block's last ones arrive.
  await new Promise((resolve) => setImmediate(resolve));
  return { cpuUs: user + system, gcUs: gcUs - gcBefore, failures };
};

process.on('message', (message: number | 'stop') => {
  if (message === 'stop') void client.close().then(() => process.disconnect());
  else void block(message).then((result) => process.send?.(result));
});
process.send?.({ ready: true });
