// The runtime scenarios (test/runtimes/scenarios/) in workerd: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('workerd');
