/**
 * A self-signed certificate for `127.0.0.1`, `::1` and `localhost`, made at test time and shared by
 * every server of one process, and the ways each client is told to trust it.
 *
 * Made with the `selfsigned` package rather than Debian's `openssl`: it runs in-process through
 * WebCrypto (an EC P-256 key takes about 25 ms here), needs no child process, temporary files or
 * system binary, and so behaves the same on any machine that runs the tests. SHA-256, because
 * OpenSSL 3 refuses SHA-1 signatures (selfsigned's default) at its default security level.
 */
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { generate } from 'selfsigned';

export interface TestCertificate {
  /** The certificate (PEM). Being self-signed, it is also what a client passes as `ca`. */
  readonly cert: string;
  /** Its private key (PEM, PKCS#8). */
  readonly key: string;
}

let made: Promise<TestCertificate> | undefined;

/** The process's test certificate, made on the first call. */
export const testCertificate = (): Promise<TestCertificate> => {
  made ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return made;
};

/**
 * undici `Agent` options (undici 7 and 8 alike) that trust `ca`, over `options`:
 * `new Agent(trustingAgentOptions(ca, { allowH2: true }))`.
 */
export const trustingAgentOptions = <T extends object>(
  ca: string,
  options?: T,
): T & { connect: { ca: string } } => {
  const connect = (options as { readonly connect?: object } | undefined)?.connect;
  return { ...options, connect: { ...connect, ca } } as T & { connect: { ca: string } };
};

/** A keep-alive `https.Agent` that trusts `ca` (for `https.request` and axios' `httpsAgent`); destroy it after. */
export const trustingHttpsAgent = (ca: string, options?: HttpsAgentOptions): HttpsAgent =>
  new HttpsAgent({ keepAlive: true, ...options, ca });

/**
 * axios request config that trusts `ca` on both of its http adapter's transports: `httpsAgent`
 * for HTTP/1.1 and `http2Options` (handed to `http2.connect`) for `httpVersion: 2`, which ignores
 * `httpsAgent`. The caller destroys `httpsAgent`.
 */
export const trustingAxiosConfig = (
  ca: string,
): { readonly httpsAgent: HttpsAgent; readonly http2Options: { readonly ca: string } } => ({
  httpsAgent: trustingHttpsAgent(ca),
  http2Options: { ca },
});
