// The browser scenarios against nginx (test/nginx-browsers/) in Chromium: see suite.ts.
import { describeNginxBrowser } from './suite.ts';

describeNginxBrowser('chromium');
