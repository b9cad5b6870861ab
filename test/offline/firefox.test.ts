// The offline scenarios (test/offline/) in Firefox: see suite.ts.
import { describeOffline } from './suite.ts';

describeOffline('firefox');
