import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The rules of the folder tree (README, "Architecture"), read from the source itself: which area may
 * import which, and which area writes each table.
 */
const SRC = resolve(import.meta.dirname, '../src');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `storefront/cart`, `auth`, `common`…; the service's entry point and wiring at the top of src/ are `(wiring)`. */
function areaOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  if (parts[0] === 'cli.ts') return 'cli';
  if (parts.length === 1) return '(wiring)';
  if (parts[0] === 'storefront' && parts.length > 2) return `storefront/${parts[1]}`;
  return parts[0];
}

const isEntity = (file: string) => file.includes('/entities/');

interface Edge {
  from: string;
  to: string;
  fromArea: string;
  toArea: string;
}

const FILES = sourceFiles();
const EDGES: Edge[] = FILES.flatMap((from) =>
  [...readFileSync(from, 'utf8').matchAll(/from '(\.\.?\/[^']+)'/g)].map(([, specifier]) => {
    const to = resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
    return { from, to, fromArea: areaOf(from), toArea: areaOf(to) };
  }),
);
const show = (edges: Edge[]) => edges.map((edge) => `${relative(SRC, edge.from)} → ${relative(SRC, edge.to)}`);

describe('architecture', () => {
  it('common imports nothing of the service; infra only common', () => {
    expect(show(EDGES.filter((edge) => edge.fromArea === 'common' && edge.toArea !== 'common'))).toEqual([]);
    expect(show(EDGES.filter((edge) => edge.fromArea === 'infra' && !['common', 'infra'].includes(edge.toArea)))).toEqual([]);
  });

  it('demo data sits above the domains: only the wiring and the command line import it', () => {
    const intoDemo = EDGES.filter((edge) => edge.toArea === 'demo' && !['demo', '(wiring)', 'cli'].includes(edge.fromArea));
    expect(show(intoDemo)).toEqual([]);
  });

  it('areas import each other in one direction only (entities may name other areas’ entities for their relations)', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of EDGES) {
      if (edge.fromArea === edge.toArea || (isEntity(edge.from) && isEntity(edge.to))) continue;
      if (!graph.has(edge.fromArea)) graph.set(edge.fromArea, new Set());
      graph.get(edge.fromArea)!.add(edge.toArea);
    }
    const mutual = [...graph].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && graph.get(to)?.has(from)).map((to) => `${from} ↔ ${to}`),
    );
    expect(mutual).toEqual([]);
    // and no longer cycle either
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (area: string, path: string[]) => {
      if (state.get(area) === 'done') return;
      if (state.get(area) === 'visiting') return void cycles.push([...path.slice(path.indexOf(area)), area].join(' → '));
      state.set(area, 'visiting');
      for (const next of graph.get(area) ?? []) visit(next, [...path, area]);
      state.set(area, 'done');
    };
    for (const area of graph.keys()) visit(area, []);
    expect(cycles).toEqual([]);
  });

  it('no file imports itself through others: the import graph of files has no cycle', () => {
    const imports = new Map<string, string[]>();
    for (const edge of EDGES) imports.set(edge.from, [...(imports.get(edge.from) ?? []), edge.to]);
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    // Depth first without recursion: each frame is a file and the imports of it still to visit.
    for (const start of FILES) {
      if (state.has(start)) continue;
      const stack: { file: string; next: string[] }[] = [{ file: start, next: [...(imports.get(start) ?? [])] }];
      state.set(start, 'visiting');
      while (stack.length > 0) {
        const frame = stack[stack.length - 1];
        const to = frame.next.pop();
        if (to === undefined) {
          state.set(frame.file, 'done');
          stack.pop();
        } else if (state.get(to) === 'visiting') {
          const path = stack.map((entry) => entry.file);
          cycles.push([...path.slice(path.indexOf(to)), to].map((file) => relative(SRC, file)).join(' → '));
        } else if (!state.has(to)) {
          state.set(to, 'visiting');
          stack.push({ file: to, next: [...(imports.get(to) ?? [])] });
        }
      }
    }
    expect(cycles).toEqual([]);
  });

  it('one area writes each table (payments also keeps the payment state on the order row)', () => {
    const migrations = FILES.filter((file) => file.includes('/migrations/'));
    const tables = new Set(migrations.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/create table (\w+)/g)].map((m) => m[1])));
    const writers = new Map<string, Set<string>>();
    for (const file of FILES.filter((candidate) => !migrations.includes(candidate))) {
      for (const [, table] of readFileSync(file, 'utf8').matchAll(/\b(?:insert into|update|delete from)\s+(\w+)/g)) {
        if (!tables.has(table)) continue;
        if (!writers.has(table)) writers.set(table, new Set());
        writers.get(table)!.add(areaOf(file));
      }
    }
    const shared = [...writers]
      .filter(
        ([table, areas]) => areas.size > 1 && !(table === 'orders' && [...areas].sort().join() === 'storefront/orders,storefront/payments'),
      )
      .map(([table, areas]) => `${table}: ${[...areas].join(', ')}`);
    expect(shared).toEqual([]);
    expect(writers.size).toBeGreaterThan(15);
  });
});
