/**
 * Runs every scenario that applies on every client of one runtime, as vitest tests (one per
 * scenario and client), against one scripted server. The runtime starts once for the suite and
 * runs the scenarios one after another. A runtime that cannot start fails each of its tests with
 * the reason; nothing is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import type { RuntimeHost } from './hosts/host.ts';
import type { MatrixSuiteMeta, MatrixTestMeta } from './matrix.ts';
import type { ClientName, ErrorShape, RuntimeName } from './protocol.ts';
import { RUNTIMES } from './runtimes.ts';
import { applies, type CheckContext, notApplicable, type Scenario } from './scenario.ts';
import { scenarios } from './scenarios/index.ts';

// A browser's first launch on a busy 2-core machine can take a while; the jobs themselves are quick.
const START_TIMEOUT_MS = 90_000;
const JOB_TIMEOUT_MS = 30_000;

const harnessError = (shape: ErrorShape): Error => {
  const error = new Error(`the scenario threw inside the runtime: ${shape.name}: ${shape.message}`);
  if (shape.stack) error.stack = `${error.message}\n--- inside the runtime ---\n${shape.stack}`;
  return error;
};

const leftOut = (runtime: RuntimeName, clients: readonly ClientName[]): MatrixSuiteMeta['notApplicable'] =>
  clients.flatMap((client) =>
    scenarios.flatMap((scenario) => {
      const why = notApplicable(scenario, runtime, client);
      return why === undefined ? [] : [{ client, scenario: scenario.id, why }];
    }),
  );

export const describeRuntime = (runtime: RuntimeName): void => {
  const spec = RUNTIMES[runtime];
  const suiteMeta: MatrixSuiteMeta = {
    runtime,
    label: spec.label,
    clientScenarios: scenarios.flatMap((s) => (s.clients ? [{ scenario: s.id, clients: s.clients }] : [])),
    notApplicable: leftOut(runtime, spec.clients),
  };

  describe(`runtime ${runtime}: ${spec.label}`, { meta: { runtimeMatrixSuite: suiteMeta } }, () => {
    let server: HttpScriptedServer;
    let host: RuntimeHost | undefined;
    let notStarted: Error | undefined;

    beforeAll(async () => {
      // Every connection is closed after its answer: see `keepAlive` in the scripted server.
      server = await startScriptedServer({ cors: true, keepAlive: false });
      try {
        host = await spec.start();
        if (spec.version && !spec.version.test(host.version)) {
          throw new Error(`${runtime} reports itself as ${host.version}, not ${spec.version}`);
        }
      } catch (error) {
        notStarted = error instanceof Error ? error : new Error(String(error));
        await host?.close();
        host = undefined;
        // Loud, once per run: every test of this runtime fails with this reason too.
        console.error(
          `\n${runtime} could not start (its ${spec.clients.length} clients' tests fail): ${notStarted.message}\n`,
        );
      }
    }, START_TIMEOUT_MS);

    afterAll(async () => {
      await host?.close();
      // With the runtime gone, no connection of its may be left open.
      const left = await server.waitForIdle(3_000);
      await server.close();
      expect(left, `${runtime} left connections open`).toBe(0);
    }, START_TIMEOUT_MS);

    const runScenario = async (
      scenario: Scenario,
      client: ClientName,
      meta: MatrixTestMeta,
    ): Promise<void> => {
      if (!host) throw new Error(`${spec.label} did not start: ${notStarted?.message ?? 'unknown'}`);
      meta.version = host.version;
      const prefix = `/${runtime}/${client}/${scenario.id}`;
      for (const [path, steps] of Object.entries(scenario.routes())) server.route(`${prefix}${path}`, steps);
      const reply = await host.run({ scenario: scenario.id, client, runtime, baseUrl: server.url, prefix });
      if (!reply.ok) throw harnessError(reply.error);
      const findings: string[] = [];
      meta.findings = findings;
      const ctx: CheckContext = {
        expect,
        runtime,
        client,
        result: reply.result,
        path: (path) => `${prefix}${path}`,
        seen: (path) => server.seen(`${prefix}${path}`),
        preflights: (path) => server.preflights.filter((p) => p.path === `${prefix}${path}`),
        report: (finding) => findings.push(finding),
      };
      scenario.check(ctx);
    };

    for (const client of spec.clients) {
      describe(client, () => {
        for (const scenario of scenarios.filter((s) => applies(s, runtime, client))) {
          const meta: MatrixTestMeta = { runtime, client, scenario: scenario.id };
          it(`${scenario.id}: ${scenario.title}`, {
            meta: { runtimeMatrix: meta },
            timeout: JOB_TIMEOUT_MS,
          }, async ({ task }) => {
            // The task's meta is what reaches the reporter: the same object, filled in as the test runs.
            task.meta.runtimeMatrix = meta;
            await runScenario(scenario, client, meta);
          });
        }
      });
    }
  });
};
