/** Every client the conformance suite runs against. */
import type { ConformanceDriver } from '../driver.ts';
import { axiosDriver, axiosDrivers, axiosFetchDriver } from './axios.ts';
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

/**
 * Every client, and axios attached by default too (it reads every body itself): the opt-in
 * features' scenarios (hedging above all, which stream mode does not do) run on both attachments.
 */
export const featureDrivers: readonly ConformanceDriver[] = [
  ...drivers,
  ...axiosDrivers.filter((d) => !drivers.includes(d)),
];
