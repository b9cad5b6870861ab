// The runtime scenarios (test/runtimes/scenarios/) in node24: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('node24');
