/** axios' own http adapter, where this axios build has one (Node; elsewhere `#platform` has none). */
import type { AxiosAdapter } from 'axios';
import axios from '../axios-values.ts';

let known: AxiosAdapter | null | undefined;

/** axios' http adapter, looked up once; `null` where axios has none (`getAdapter('http')` throws: browsers). */
export const httpAdapter = (): AxiosAdapter | null => {
  if (known === undefined) {
    try {
      known = axios.getAdapter('http');
    } catch {
      known = null;
    }
  }
  return known;
};
