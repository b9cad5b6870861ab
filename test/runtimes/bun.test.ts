// The runtime scenarios (test/runtimes/scenarios/) in bun: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('bun');
