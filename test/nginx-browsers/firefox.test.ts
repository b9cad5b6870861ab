// The browser scenarios against nginx (test/nginx-browsers/) in Firefox: see suite.ts.
import { describeNginxBrowser } from './suite.ts';

describeNginxBrowser('firefox');
