#!/usr/bin/env node
/** The `jitterbug-sim` executable. See `command.ts`. */
import { runCli } from './command.ts';

// `jitterbug-sim occ | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2));
