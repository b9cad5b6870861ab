/**
 * Run by `exit.test.ts` in its own Node process: every client sends mixed requests against the
 * fault server, then everything is closed the documented way — and the script does NOT call
 * `process.exit()`. If anything (a timer, a socket, a listener on a handle) were left behind, the
 * process would not end on its own, and the parent would see it still running.
 */
import { seededRandom } from '@jitterbug/core';
import { sleep } from '../../packages/core/src/sleep.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { startFaultServer } from './fault-server.ts';
import { KINDS, requestFor } from './load-requests.ts';

const REQUESTS = Number(process.argv[2] ?? 300);
const settings = { slowMs: 600, hugeBytes: 1_048_576 };
let sent = 0;
for (const [i, driver] of drivers.entries()) {
  const server = await startFaultServer(7 + i, REQUESTS, settings);
  const client = await driver.create(server.url, {
    maxAttempts: 4,
    attemptTimeoutMs: 300,
    budget: false,
    random: seededRandom(i),
    sleep: (_ms, signal) => sleep(0, signal),
  });
  const pick = seededRandom(100 + i);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < REQUESTS) {
        const id = next++;
        await client.send(requestFor(id, KINDS[Math.floor(pick() * KINDS.length)]!));
        sent++;
      }
    }),
  );
  await client.close();
  await server.close();
}
process.stdout.write(`done ${sent} ${drivers.length}\n`);
