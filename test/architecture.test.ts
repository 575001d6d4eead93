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

/** An area's subfolder a file sits in (`data-hub/runs`, `storefront/cart/dto`), or null for a file at the area's root. */
function subfolderOf(file: string): string | null {
  const parts = relative(SRC, file).split('/');
  const depth = areaOf(file).split('/').length;
  return parts.length > depth + 1 ? parts.slice(0, depth + 1).join('/') : null;
}

interface Edge {
  from: string;
  to: string;
  fromArea: string;
  toArea: string;
  /** `import type`: gone once compiled, so no load-time dependency. */
  typeOnly: boolean;
}

const FILES = sourceFiles();
const SOURCES = new Map(FILES.map((file) => [file, readFileSync(file, 'utf8')]));
const EDGES: Edge[] = FILES.flatMap((from) =>
  [...SOURCES.get(from)!.matchAll(/^(?:import|export)(\s+type)?\b[^;]*?from '(\.\.?\/[^']+)'/gms)].map(([, type, specifier]) => {
    const to = resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
    return { from, to, fromArea: areaOf(from), toArea: areaOf(to), typeOnly: Boolean(type) };
  }),
);
/** The packages each file loads (type imports aside): `exceljs`, `@mikro-orm/core`, `node:stream`. */
const PACKAGES = new Map(
  FILES.map((file) => [
    file,
    [...SOURCES.get(file)!.matchAll(/^import(\s+type)?\b[^;]*?from '([^.'][^']*)'/gms)]
      .filter(([, type]) => !type)
      .map(([, , specifier]) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0])),
  ]),
);

/** Cycles of a directed graph, found depth first without recursion: each frame is a node and the nodes after it still to visit. */
function cyclesOf(graph: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    const stack: { node: string; next: string[] }[] = [{ node: start, next: [...(graph.get(start) ?? [])] }];
    state.set(start, 'visiting');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const to = frame.next.pop();
      if (to === undefined) {
        state.set(frame.node, 'done');
        stack.pop();
      } else if (state.get(to) === 'visiting') {
        const path = stack.map((entry) => entry.node);
        cycles.push([...path.slice(path.indexOf(to)), to].join(' → '));
      } else if (!state.has(to)) {
        state.set(to, 'visiting');
        stack.push({ node: to, next: [...(graph.get(to) ?? [])] });
      }
    }
  }
  return cycles;
}

function graphOf(edges: { from: string; to: string }[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}
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
    const cycles = cyclesOf(graphOf(EDGES.map((edge) => ({ from: relative(SRC, edge.from), to: relative(SRC, edge.to) }))));
    expect(cycles).toEqual([]);
  });

  it('no two subfolders of an area import each other in a circle (module files and an area’s root files wire them; type imports aside)', () => {
    const wiring = (file: string) => file.endsWith('.module.ts') || subfolderOf(file) === null;
    const between = EDGES.filter(
      (edge) =>
        !edge.typeOnly &&
        edge.fromArea === edge.toArea &&
        !wiring(edge.from) &&
        !wiring(edge.to) &&
        subfolderOf(edge.from) !== subfolderOf(edge.to),
    );
    expect(cyclesOf(graphOf(between.map((edge) => ({ from: subfolderOf(edge.from)!, to: subfolderOf(edge.to)! }))))).toEqual([]);
  });

  it('entities and DTOs load no service, controller, module or runner, and no library beyond validation, the ORM’s core and value parsing', () => {
    const shape = (file: string) => /\/(entities|dto)\//.test(file) || /\.(entity|dto|response)\.ts$/.test(file);
    const ALLOWED = new Set([
      '@mikro-orm/core',
      '@nestjs/common',
      '@nestjs/swagger',
      'class-transformer',
      'class-validator',
      // values a field holds: dates and time zones, cron expressions, linear-time patterns
      'luxon',
      'cron-parser',
      're2js',
    ]);
    const imports = graphOf(EDGES.filter((edge) => !edge.typeOnly));
    const problems: string[] = [];
    for (const file of FILES.filter(shape)) {
      const seen = new Set([file]);
      const stack = [file];
      while (stack.length > 0) {
        const next = stack.pop()!;
        if (next !== file && /\.(service|controller|module)\.ts$|runner\.ts$/.test(next))
          problems.push(`${relative(SRC, file)} loads ${relative(SRC, next)}`);
        for (const name of PACKAGES.get(next) ?? []) {
          if (!ALLOWED.has(name) && !name.startsWith('node:'))
            problems.push(`${relative(SRC, file)} loads ${name} through ${relative(SRC, next)}`);
        }
        for (const to of imports.get(next) ?? []) if (!seen.has(to)) (seen.add(to), stack.push(to));
      }
    }
    expect(problems).toEqual([]);
  });

  it('a table named in raw SQL is read or written there: areas read other areas’ tables only as declared, and the data hub only through their owners', () => {
    // Each table's owner: the area whose entity declares it.
    const owners = new Map<string, string>();
    for (const file of FILES.filter((candidate) => candidate.endsWith('.entity.ts'))) {
      for (const [, table] of SOURCES.get(file)!.matchAll(/tableName: '(\w+)'/g)) owners.set(table, areaOf(file));
    }
    const named = /\b(?:from|join|into|update|copy|table)\s+(\w+)/gi;
    const reads = new Map<string, Set<string>>();
    for (const file of FILES.filter((candidate) => !candidate.includes('/migrations/'))) {
      const area = areaOf(file);
      for (const [, table] of SOURCES.get(file)!.matchAll(named)) {
        const owner = owners.get(table);
        if (!owner || owner === area) continue;
        if (!reads.has(area)) reads.set(area, new Set());
        reads.get(area)!.add(owner);
      }
    }
    const actual = Object.fromEntries([...reads].map(([area, of]) => [area, [...of].sort()]));
    expect(actual).toEqual({
      // An undo takes back a shopper an import created only while no cart, order or search refers to it.
      account: ['auth', 'storefront/cart', 'storefront/orders', 'storefront/search'],
      auth: ['stores'],
      // Demo data sits above every domain and seeds them all.
      demo: ['account', 'storefront/catalogue', 'storefront/checkout', 'storefront/orders', 'storefront/search', 'stores'],
      // Insights is the read model of the store's records: its folds and values read them where they are.
      insights: [
        'account',
        'auth',
        'storefront/catalogue',
        'storefront/checkout',
        'storefront/events',
        'storefront/orders',
        'storefront/payments',
        'storefront/search',
        'stores',
      ],
      notifications: ['stores'],
      // A cart, a checkout and an order read the catalogue and the shopper in the transaction that sells.
      'storefront/cart': ['account', 'storefront/catalogue', 'storefront/checkout', 'stores'],
      'storefront/catalogue': ['stores'],
      'storefront/checkout': ['account', 'storefront/cart', 'storefront/catalogue', 'stores'],
      'storefront/orders': ['storefront/catalogue', 'storefront/checkout', 'storefront/payments'],
      'storefront/payments': ['storefront/orders'],
      'storefront/search': ['auth', 'storefront/catalogue'],
      // The data hub reads and writes other areas' records only through their owners (record-imports.ts, record-exports.ts).
    });
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
