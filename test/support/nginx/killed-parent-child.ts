/**
 * Run by `nginx.test.ts` in its own Node process, which the test then kills outright (SIGKILL: no
 * exit handler runs): starts nginx, prints its pid and its folder, and waits to be killed.
 */
import { startNginx } from './nginx.ts';

const nginx = await startNginx({ servers: [{ name: 'a', listen: ['http'], locations: [] }] });
process.stdout.write(`${nginx.pid} ${nginx.dir}\n`);
setInterval(() => {}, 60_000);
