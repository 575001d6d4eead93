import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, ROOT } from './support/build.js';
import { freePort } from './support/ports.js';
import { eventually } from './support/waiting.js';

/**
 * Every example of the README, as written, against what a newcomer gets: the built service started as
 * `npm start` starts it, on a fresh embedded database, so that it creates the demo store and prints its
 * banner. The bash blocks run in one bash, in the README's order, with only what the README says to take
 * from the banner filled in (the port is the test's); the command-line block's commands run through the
 * built CLI, as `npm run cli` runs it once built.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
const CLI_PREFIX = 'npm run --silent cli -- ';

/** Blocks that set a machine up rather than use the service, each with why this test does not run it. */
const NOT_RUN: Record<string, string> = {
  'npm install && npm start': 'installs, builds and starts the service: this test starts the built service as npm start does',
  'npm install --prefix .tools/node node@24': 'downloads Node 24 from the registry: the machine this test runs on has it',
};

interface Block {
  /** The README's line number (from 1) of the block's first line. */
  start: number;
  lines: string[];
}

function bashBlocks(): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  README.forEach((line, index) => {
    if (current === null && line === '```bash') current = { start: index + 2, lines: [] };
    else if (current !== null && line === '```') {
      blocks.push(current);
      current = null;
    } else current?.lines.push(line);
  });
  return blocks;
}

const isCliBlock = (block: Block) =>
  block.lines.every((line) => line.startsWith('#') || line.trim() === '' || line.startsWith(CLI_PREFIX)) &&
  block.lines.some((line) => line.startsWith(CLI_PREFIX));
const notRunBecause = (block: Block) => Object.entries(NOT_RUN).find(([first]) => block.lines[0].startsWith(first))?.[1];

/**
 * The commands of a block as bash reads them, each with the README lines it spans: a command goes on past
 * a line ending in a backslash or inside an open quote. Comments are left out of the quoting.
 */
function commandsOf(block: Block): { from: number; to: number; text: string }[] {
  const commands: { from: number; to: number; text: string }[] = [];
  let open: { from: number; lines: string[] } | null = null;
  let quote: '"' | "'" | null = null;
  block.lines.forEach((line, index) => {
    open ??= { from: block.start + index, lines: [] };
    open.lines.push(line);
    for (let i = 0; i < line.length; i++) {
      const char = line[i];
      if (quote === null && char === '#' && (i === 0 || /\s/.test(line[i - 1]))) break;
      if (char === '\\' && quote !== "'") i++;
      else if (quote === null && (char === '"' || char === "'")) quote = char;
      else if (char === quote) quote = null;
    }
    if (quote === null && !line.endsWith('\\')) {
      commands.push({ from: open.from, to: block.start + index, text: open.lines.join('\n') });
      open = null;
    }
  });
  return commands;
}

/** The status a command's own comment says it answers (`# 422 over_row_limit`), if it names one. */
const statusNamedIn = (command: string) => /\s#\s+([1-5]\d\d)\b/.exec(command)?.[1];

interface Banner {
  storeId: string;
  apiKey: string;
  password: string;
}

function bannerOf(stdout: string): Banner {
  const storeId = /^ {2}store id : (\S+)$/m.exec(stdout)?.[1];
  const apiKey = /^ {2}API key {2}: (\S+)$/m.exec(stdout)?.[1];
  const password = /^ {2}dashboard: owner@demo\.store \/ (\S+)/m.exec(stdout)?.[1];
  if (!storeId || !apiKey || !password) throw new Error(`no demo banner in:\n${stdout}`);
  return { storeId, apiKey, password };
}

function run(file: string, args: string[], options: { cwd: string; env: Record<string, string>; timeout: number }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the README’s examples, against the demo store of a first start', () => {
  let built: (relative: string) => string;
  let server: ChildProcess;
  let serverOutput = '';
  let dataDir: string;
  let workDir: string;
  let env: Record<string, string>;
  let banner: Banner;

  beforeAll(async () => {
    built = await buildOnce();
    dataDir = await mkdtemp(join(tmpdir(), 'storefront-readme-'));
    workDir = await mkdtemp(join(tmpdir(), 'storefront-readme-work-'));
    env = {
      // The Node running this test first: the README's `json` helper runs `node`.
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? workDir,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      NODE_COMPILE_CACHE: join(tmpdir(), 'storefront-test-compile-cache'),
    };
    server = spawn(process.execPath, ['--max-semi-space-size=16', '--heap-growing-percent=50', built('src/main.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk) => (serverOutput += chunk));
    server.stderr!.on('data', (chunk) => (serverOutput += chunk));
    await eventually(
      async () => serverOutput,
      (output) => output.includes('  API docs:') || server.exitCode !== null,
      170_000,
    );
    banner = bannerOf(serverOutput);
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  it('has no bash block this test leaves out but the machine set-up ones', () => {
    expect(bashBlocks().map(notRunBecause).filter(Boolean)).toEqual(Object.values(NOT_RUN));
    expect(bashBlocks().filter(isCliBlock)).toHaveLength(1);
  });

  it('runs every command of the command-line block through the built CLI', async () => {
    const [block] = bashBlocks().filter(isCliBlock);
    /** What earlier commands printed that later ones name: the new store, a key, a member, a session, orders. */
    const found: Record<string, string> = {};
    let orders: { id: string; status: string; fulfilmentType: string; fulfilmentStatus: string; lines: { id: string }[] }[] = [];
    const remember: Record<string, (out: any) => void> = {
      'store create': (out) => (found.STORE_ID = out.store.id),
      'key issue': (out) => (found.KEY_ID = out.apiKey.id),
      'order list': (out) => (orders = out.orders),
      'staff add': (out) => (found.STAFF_ID = out.staff.id),
      'support open': (out) => (found.SUPPORT_SESSION_ID = out.supportSession.id),
    };
    const valueOf = (placeholder: string, command: string): string | undefined => {
      // An order a transition applies to (a delivery not yet shipped), or one delivered, to refund.
      const refunding = command === 'order refund';
      const order = orders.find((candidate) =>
        refunding
          ? candidate.status === 'completed'
          : candidate.status === 'open' && candidate.fulfilmentType === 'delivery' && candidate.fulfilmentStatus === 'unfulfilled',
      );
      const given: Record<string, string | undefined> = {
        ...found,
        ORDER_ID: order?.id,
        'LINE_ID:QTY': order && `${order.lines[0].id}:1`,
        EMAIL: 'sam@example.com',
        NAME: 'Sam',
        ROLE: command === 'staff set-role' ? 'viewer' : 'analyst',
        TEXT: 'a report looks wrong',
      };
      return given[placeholder];
    };

    for (const line of block.lines.filter((text) => text.startsWith(CLI_PREFIX))) {
      const words = line
        .slice(CLI_PREFIX.length)
        .split(' ')
        .map((word) => word.split('|')[0]);
      const command = words.slice(0, THREE_WORD_COMMANDS.has(words.slice(0, 3).join(' ')) ? 3 : 2).join(' ');
      const args = synopsisArgs(line.slice(CLI_PREFIX.length), (placeholder) => valueOf(placeholder, command));
      const result = await run(process.execPath, [built('src/cli.js'), ...args], { cwd: ROOT, env, timeout: 120_000 });
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
      const out = JSON.parse(result.stdout);
      remember[command]?.(out);
    }
    // Every command that names a store ran on the one the block made, not on the demo store of the other examples.
    expect(found.STORE_ID).not.toBe(banner.storeId);
  }, 300_000);

  it('runs every bash block as written, each request answering 2xx or the status its comment names', async () => {
    const blocks = bashBlocks().filter((block) => !isCliBlock(block) && notRunBecause(block) === undefined);
    const headers = join(workDir, 'headers');
    // Line for line the README, every line outside these blocks blank, so that bash's line numbers are the README's.
    const script = README.map(() => '');
    for (const block of blocks) block.lines.forEach((line, index) => (script[block.start - 1 + index] = line));
    const filled = { base: 0, signIn: 0, key: 0 };
    for (const [index, line] of script.entries()) {
      script[index] = line
        .replace(/^BASE=http:\/\/localhost:3000$/, () => (filled.base++, `BASE=http://localhost:${env.PORT}`))
        .replace(/^STORE=\.\.\.; PASSWORD=\.\.\./, () => (filled.signIn++, `STORE=${banner.storeId}; PASSWORD=${banner.password}`))
        .replace(/^KEY=sk_live_\.\.\./, () => (filled.key++, `KEY=${banner.apiKey}`));
    }
    expect(filled.base).toBeGreaterThan(0);
    expect(filled.signIn).toBeGreaterThan(0);
    expect(filled.key).toBeGreaterThan(0);
    // The first README line is a title, blank here: room for stopping at the first failure and for a curl that keeps
    // each answer's status line, named by the README line it was called from.
    script[0] =
      'set -eo pipefail; mkdir -p "$HEADERS"; ' + 'curl() { command curl --dump-header "$HEADERS/$(date +%s%N).${BASH_LINENO[0]}" "$@"; }';
    const scriptPath = join(workDir, 'readme.sh');
    await writeFile(scriptPath, script.join('\n'));

    const result = await run('bash', [scriptPath], { cwd: workDir, env: { ...env, HEADERS: headers }, timeout: 240_000 });
    expect(result.code, `${result.stderr}\n${result.stdout}`).toBe(0);
    // Every answer printed has data: no empty list of rows.
    expect(result.stdout).not.toMatch(/^\[\]$/m);

    const commands = blocks.flatMap(commandsOf);
    const answers = await readdir(headers);
    expect(answers.length).toBeGreaterThan(30);
    for (const name of answers) {
      const line = Number(name.split('.')[1]);
      const command = commands.find(({ from, to }) => line >= from && line <= to);
      expect(command, `README line ${line}`).toBeDefined();
      const statuses = [...(await readFile(join(headers, name), 'utf8')).matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((match) => match[1]);
      const named = statusNamedIn(command!.text);
      if (named) expect(statuses.at(-1), command!.text).toBe(named);
      else expect(statuses.at(-1), command!.text).toMatch(/^2\d\d$/);
    }

    // The files the examples download: a year of products, and every row of the query over the builder's limit.
    const files = await readdir(workDir);
    expect(files.filter((file) => /^products_.*\.xlsx$/.test(file))).toHaveLength(1);
    const [everyRow] = files.filter((file) => /^custom-report_.*\.csv$/.test(file));
    expect((await readFile(join(workDir, everyRow), 'utf8')).trim().split('\r\n').length).toBeGreaterThan(5001);
  }, 300_000);
});

/** The CLI's commands of three words; every other is two. */
const THREE_WORD_COMMANDS = new Set(['datahub connections list']);

/**
 * A synopsis line as the arguments of a command to run: each placeholder (STORE_ID, LINE_ID:QTY, a,b) filled
 * by `valueOf`, an optional part kept with its example value or dropped when it has none, a repetition
 * (`[,LINE_ID:QTY]`) left out, and the first of alternatives (`basic|growth|pro`).
 */
function synopsisArgs(synopsis: string, valueOf: (placeholder: string) => string | undefined): string[] {
  const tokens = (synopsis.split(/\s+#\s/)[0].match(/"[^"]*"|\S+/g) ?? []).map((token) => token.replace(/^"(.*)"$/, '$1'));
  const args: string[] = [];
  let optional: string[] | null = null;
  let complete = true;
  for (const raw of tokens) {
    const opens = raw.startsWith('[');
    const closes = (opens || optional !== null) && raw.endsWith(']');
    const word = raw
      .slice(opens ? 1 : 0, closes ? -1 : undefined)
      .replace(/\[[^\]]*\]/g, '')
      .split('|')[0];
    const value = /^[A-Z][A-Z_]*(:[A-Z]+)?$|^a,b$/.test(word) ? valueOf(word) : word;
    if (opens) {
      optional = [];
      complete = true;
    }
    if (optional !== null) {
      if (value === undefined) complete = false;
      else optional.push(value);
      if (closes) {
        if (complete) args.push(...optional);
        optional = null;
      }
    } else if (value === undefined) throw new Error(`no value for ${word} in: ${synopsis}`);
    else args.push(value);
  }
  return args;
}
