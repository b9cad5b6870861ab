/** This package's version, the meter's instrumentation scope version (a test keeps it equal to package.json's). */
export const VERSION = '0.1.0';
