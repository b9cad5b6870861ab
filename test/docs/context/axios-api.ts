/**
 * Context for documentation snippets that use an axios instance with jitterbug attached, as `api`,
 * and `getRetryInfo`: a ```ts block whose first line is `// @snippet-context: <path to this file>`
 * is typechecked with these lines before it (see `../snippets.ts`).
 */
import { attachRetry, createHedging, getRetryInfo } from '@jitterbug/axios';
import axios from 'axios';

export const api = axios.create({ baseURL: 'https://api.example.com' });
attachRetry(api);

// In scope for the snippet that follows; exported so that this file also stands alone.
export { createHedging, getRetryInfo };
