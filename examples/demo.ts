/**
 * `make demo`: what jitterbug does, printed. For now the core's delay table; the adapters' request
 * timelines and the simulator's charts join it as they land.
 */
import { printCoreDelays } from './core-delays.ts';

console.log('jitterbug demo\n==============\n');
console.log('1. Backoff strategies (@jitterbug/core)\n');
printCoreDelays();
