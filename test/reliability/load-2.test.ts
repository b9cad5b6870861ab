/** Load with faults, clients 2 of every 2 (see `load-suite.ts`); split so workers share the load. */
import { defineLoadSuite } from './load-suite.ts';

defineLoadSuite(1, 2);
