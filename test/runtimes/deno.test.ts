// The runtime scenarios (test/runtimes/scenarios/) in deno: see suite.ts.
import { describeRuntime } from './suite.ts';

describeRuntime('deno');
