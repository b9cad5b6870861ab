#!/usr/bin/env node
/** The `jitterbug-sim` executable. See `command.ts`. */
import { runCli } from './command.ts';

process.exitCode = await runCli(process.argv.slice(2));
