/**
 * The certificate nginx serves over TLS: self-signed for 127.0.0.1 and localhost, made with
 * Debian's `openssl` at test time (once per process), as an operator would make one for nginx.
 * Clients trust it by passing it as their `ca`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface NginxCertificate {
  /** PEM; being self-signed, also what a client trusts as `ca`. */
  readonly cert: string;
  readonly key: string;
}

const run = promisify(execFile);
let made: Promise<NginxCertificate> | undefined;

const make = async (): Promise<NginxCertificate> => {
  const dir = await mkdtemp(join(tmpdir(), 'jitterbug-nginx-cert-'));
  try {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    // An EC key (P-256): made in milliseconds where RSA 2048 takes a good part of a second.
    // Node checks the address against subjectAltName, not the common name.
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]).catch((error: unknown) => {
      throw new Error(`openssl could not make nginx's test certificate: ${String(error)}`, { cause: error });
    });
    return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** The process's nginx certificate, made on the first call. */
export const nginxCertificate = (): Promise<NginxCertificate> => {
  made ??= make();
  return made;
};
