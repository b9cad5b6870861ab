/**
 * The entry Node, Bun and Deno run as they are (the packages' TypeScript sources through the
 * `@jitterbug/source` condition, no bundle): one job per line on stdin, one reply per line on
 * stdout, marked so that anything else a runtime prints is told apart. Ends when stdin closes.
 */
import process from 'node:process';
import { createInterface } from 'node:readline';
import { type Job, REPLY_MARK } from '../../protocol.ts';
import { fetchClient } from '../clients/fetch.ts';
import { kyClient } from '../clients/ky.ts';
import { runJob } from '../run-job.ts';

const factories = { fetch: fetchClient, ky: kyClient };

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
// Node 21+, Bun and Deno all say who they are here ("Node.js/24", "Bun/1.4.5", "Deno/2.9.6").
process.stdout.write(`${REPLY_MARK}${JSON.stringify({ ready: navigator.userAgent })}\n`);
for await (const line of lines) {
  if (line.trim() === '') continue;
  const reply = await runJob(JSON.parse(line) as Job, factories);
  process.stdout.write(`${REPLY_MARK}${JSON.stringify(reply)}\n`);
}
