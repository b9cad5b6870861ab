// The runtime scenarios (test/runtimes/scenarios/) in node22: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('node22');
