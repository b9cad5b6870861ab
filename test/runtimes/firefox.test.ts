// The runtime scenarios (test/runtimes/scenarios/) in firefox: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('firefox');
