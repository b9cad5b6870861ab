/** Load with faults, clients 1 of every 2 (see `load-suite.ts`); split so workers share the load. */
import { defineLoadSuite } from './load-suite.ts';

defineLoadSuite(0, 2);
