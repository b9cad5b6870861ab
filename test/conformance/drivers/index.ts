/** Every client the conformance suite runs against. */
import type { ConformanceDriver } from '../driver.ts';
import { axiosDriver } from './axios.ts';
import { kyDrivers } from './ky.ts';
import { undiciDrivers } from './undici.ts';

export const drivers: readonly ConformanceDriver[] = [axiosDriver, ...kyDrivers, ...undiciDrivers];
