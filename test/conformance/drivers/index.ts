/** Every client the conformance suite runs against. */
import type { ConformanceDriver } from '../driver.ts';
import { axiosDriver, axiosFetchDriver } from './axios.ts';
import { fetchDriver } from './fetch.ts';
import { kyDrivers } from './ky.ts';
import { undiciDrivers } from './undici.ts';

export const drivers: readonly ConformanceDriver[] = [
  fetchDriver,
  axiosDriver,
  axiosFetchDriver,
  ...kyDrivers,
  ...undiciDrivers,
];
