/**
 * Run by a server harness's test in its own Node process, which the test then kills outright
 * (SIGKILL: no exit handler runs): starts the server named by its argument (`haproxy`, `caddy`) in
 * front of a backend address nothing needs to answer on, prints its pid and its folder, and waits
 * to be killed.
 */
import { startCaddy } from './caddy/caddy.ts';
import { startHaproxy } from './haproxy/haproxy.ts';

const backend = 'http://127.0.0.1:9';
const server = process.argv[2] === 'caddy' ? await startCaddy({}, backend) : await startHaproxy({}, backend);
process.stdout.write(`${server.pid} ${server.dir}\n`);
setInterval(() => {}, 60_000);
