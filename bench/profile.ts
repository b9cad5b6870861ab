/**
 * Summarises a `.cpuprofile` written by `node --cpu-prof`: self time by function and by package,
 * to find where a variant's extra CPU goes. Usage:
 * `node bench/profile.ts <file.cpuprofile> [top]` (prints tables; not part of `make bench`).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const where = (url: string): string => {
  const pkg = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1]!;
  const ws = url.match(/packages\/([^/]+)\/src\/(.*)$/);
  if (ws) return `@jitterbug/${ws[1]}`;
  if (url.startsWith('node:')) return 'node';
  if (url === '') return '(native)';
  return url.replace(/^.*\/work\/main\//, '');
};

export const summarise = (profile: CpuProfile, top = 25): string => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.replace(/^.*\//, '');
    const key = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''} [${where(url)}]`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    pkg.set(where(url), (pkg.get(where(url)) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, n: number): string =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  return `self time by package (${(total / 1000).toFixed(0)} ms sampled)\n${rows(pkg, 15)}\n\nself time by function\n${rows(fn, top)}`;
};

if (import.meta.main) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: node bench/profile.ts <file.cpuprofile> [top]');
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top ?? 25)));
}
