// The runtime scenarios (test/runtimes/scenarios/) in chromium: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('chromium');
