/**
 * A new user's first program, run by `scripts/pack-install.sh` inside a fresh project that installed the
 * packed tarballs: it imports every published package (and every subpath it exports) by its name, then
 * makes one real retried request through each client adapter against a local `node:http` server that
 * answers 503 to the first request on a path and 200 to the second, and asserts two attempts each.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

// A request that never ends fails the check instead of hanging `make test`.
setTimeout(() => {
  console.error('check.mjs: not done after 30 s');
  process.exit(1);
}, 30_000).unref();

// The project's own package.json lists the installed tarballs.
const project = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const packages = Object.keys(project.dependencies).filter((name) => name.startsWith('@jitterbug/'));
assert.ok(packages.length > 0, 'the project depends on no @jitterbug/ package');

// Every package and every subpath it exports, by the name a user writes.
const require = createRequire(import.meta.url);
for (const name of packages) {
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
  for (const subpath of Object.keys(manifest.exports ?? { '.': null })) {
    if (subpath === './package.json') continue;
    const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
    const module = await import(specifier);
    assert.ok(Object.keys(module).length > 0, `${specifier} exports nothing`);
  }
}

const { getRetryInfo } = await import('@jitterbug/core');
const { withRetry } = await import('@jitterbug/fetch');
const { kyRetry } = await import('@jitterbug/ky');
const { attachRetry } = await import('@jitterbug/axios');
const { retryInterceptor } = await import('@jitterbug/undici');
const { instrumentRetries } = await import('@jitterbug/otel');
const { default: ky } = await import('ky');
const { default: axios } = await import('axios');
const { Agent, request } = await import('undici');

// The first request on each path is refused with a 503, every later one answered with 200.
const hits = new Map();
const server = createServer((req, res) => {
  const count = (hits.get(req.url) ?? 0) + 1;
  hits.set(req.url, count);
  if (count === 1) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
  else res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${req.url}`);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${server.address().port}`;

// Short delays: the check measures that a retry happens, not how long it waits.
const options = { maxAttempts: 3, backoff: { baseMs: 5, capMs: 20 } };
// The OpenTelemetry package listens on the diagnostics channels while the requests run (no SDK: no-op API).
const stopOtel = instrumentRetries();

const expectTwoAttempts = (client, info, body, path) => {
  assert.equal(body, `ok ${path}`, `${client}: body`);
  assert.ok(info, `${client}: getRetryInfo found no summary`);
  assert.equal(info.attempts, 2, `${client}: attempts`);
  assert.equal(hits.get(path), 2, `${client}: requests the server saw`);
  console.log(`  ${client}: 503 then 200, getRetryInfo().attempts = ${info.attempts}`);
};

try {
  const fetchWithRetry = withRetry(fetch, options);
  const response = await fetchWithRetry(`${base}/fetch`);
  expectTwoAttempts('withRetry(fetch)', getRetryInfo(response), await response.text(), '/fetch');

  const api = ky.create(kyRetry(options));
  const kyResponse = await api.get(`${base}/ky`);
  expectTwoAttempts('ky + kyRetry', getRetryInfo(kyResponse), await kyResponse.text(), '/ky');

  const instance = axios.create({ responseType: 'text' });
  attachRetry(instance, options);
  const axiosResponse = await instance.get(`${base}/axios`);
  expectTwoAttempts('axios + attachRetry', getRetryInfo(axiosResponse), axiosResponse.data, '/axios');

  const agent = new Agent();
  try {
    const res = await request(`${base}/undici`, { dispatcher: agent.compose(retryInterceptor(options)) });
    expectTwoAttempts(
      'undici request + retryInterceptor',
      getRetryInfo(res.headers),
      await res.body.text(),
      '/undici',
    );
  } finally {
    await agent.close();
  }
} finally {
  stopOtel();
  server.close();
}
