/**
 * The rate limit the burst scenarios meet: nginx's `limit_req` at 20 requests a second with a burst
 * of 10 (`nodelay`), refusing the rest with 429 and `Retry-After`, in front of the backend, over TLS
 * and HTTP/2.
 */
import type { NginxSetup } from '../support/nginx/config.ts';

export const limitReq20 = (retryAfterSeconds: number): NginxSetup => ({
  zones: { api: { rate: '20r/s' } },
  servers: [
    {
      name: 'api',
      listen: ['https', 'h2'],
      locations: [
        {
          path: '/',
          to: { proxy: 'backend' },
          limitReq: { zone: 'api', burst: 10, nodelay: true, status: 429, retryAfterSeconds },
        },
      ],
    },
  ],
});
