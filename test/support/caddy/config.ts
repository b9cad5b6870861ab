/**
 * What a test's Caddy does, as data, and the `Caddyfile` it becomes: one site on 127.0.0.1 over TLS
 * (`tls internal`: Caddy's own local CA, whose root the clients trust) offering HTTP/2 and HTTP/1.1,
 * whose requests `reverse_proxy` sends, by path prefix, to the test's Node backend or to a closed
 * port (Caddy answers 502).
 *
 * Written for Caddy 2.6 (Debian 12). Everything it writes is under the run's folder: its storage
 * (the CA, the site's certificate), its own log and the access log (JSON); the admin endpoint,
 * through which `caddy reload` hands it a config, is on a port of its own.
 */

export interface CaddyRoute {
  /** A path prefix (`/down/`). */
  readonly path: string;
  /** The test's Node backend, or a port on 127.0.0.1 nothing listens on. */
  readonly to: 'backend' | 'closed-port';
}

export interface CaddySetup {
  /** Tried in order; a request no route matches goes to the backend. */
  readonly routes?: readonly CaddyRoute[];
}

/** What is known only when a run starts. */
export interface CaddyPlacement {
  readonly dir: string;
  /** The site's TLS port. */
  readonly port: number;
  /** The admin endpoint's port. */
  readonly adminPort: number;
  /** `http_port`: Caddy wants one, though the site serves none (no redirects). */
  readonly httpPort: number;
  /** `host:port` of the Node backend. */
  readonly backend: string;
  readonly closedPort: number;
}

/** A string as one Caddyfile token. */
const quote = (value: string): string => `"${value.replace(/(["\\])/g, '\\$1')}"`;

/** The `Caddyfile` for `setup` placed at `where`. */
export const caddyConfig = (setup: CaddySetup, where: CaddyPlacement): string => {
  const { dir } = where;
  const upstream = (to: CaddyRoute['to']) =>
    to === 'backend' ? where.backend : `127.0.0.1:${where.closedPort}`;
  const routes = (setup.routes ?? []).flatMap((route) => [
    `\thandle ${quote(`${route.path}*`)} {`,
    `\t\treverse_proxy ${upstream(route.to)}`,
    '\t}',
  ]);
  return [
    '{',
    `\tadmin 127.0.0.1:${where.adminPort}`,
    `\thttp_port ${where.httpPort}`,
    `\thttps_port ${where.port}`,
    '\tauto_https disable_redirects',
    '\tskip_install_trust',
    `\tstorage file_system {`,
    `\t\troot ${quote(`${dir}/storage`)}`,
    '\t}',
    // No HTTP/3: the clients under test speak HTTP/1.1 and HTTP/2.
    '\tservers {',
    '\t\tprotocols h1 h2',
    '\t}',
    '\tlog {',
    `\t\toutput file ${quote(`${dir}/caddy.log`)}`,
    '\t}',
    '}',
    `https://127.0.0.1:${where.port} {`,
    '\ttls internal',
    '\tlog {',
    `\t\toutput file ${quote(`${dir}/access.log`)}`,
    '\t\tformat json',
    '\t}',
    ...routes,
    '\thandle {',
    `\t\treverse_proxy ${upstream('backend')}`,
    '\t}',
    '}',
    '',
  ].join('\n');
};
