// The offline scenarios (test/offline/) in Chromium: see suite.ts.
import { describeOffline } from './suite.ts';

describeOffline('chromium');
