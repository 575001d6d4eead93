import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../support/build.js';

/** What the dashboard's browser tests share: the build, Chromium, axe-core's WCAG 2.1 AA run, screenshots. */
export const SHOTS = join(ROOT, 'test-results', 'dashboard');
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

// The page's globals, in the functions evaluated in the browser (the service's tsconfig has no DOM library).
declare const document: unknown;
declare const window: unknown;

/**
 * The app as `npm install` builds it (vite build), into `outDir`. NODE_ENV is production as it is there:
 * Vitest's `test` would make Vite keep Preact's and ECharts' development code (12 KB more, gzipped).
 */
export function buildDashboard(outDir: string): Promise<unknown> {
  return promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'dashboard/vite.config.ts'],
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', DASHBOARD_OUT_DIR: outDir } },
  );
}

export async function launchChromium(): Promise<Browser> {
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
}

let axeSource: Promise<string> | null = null;

/** axe-core's WCAG 2.1 A and AA rules on the page as it is now: no violation. */
export async function expectAccessible(target: Page, name: string): Promise<void> {
  axeSource ??= readFile(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await target.evaluate(await axeSource);
  const violations = await target.evaluate(async (tags) => {
    const axe = (window as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map(
      (violation) => `${violation.id}: ${violation.nodes.map((node: { target: string[] }) => node.target.join(' ')).join(', ')}`,
    );
  }, WCAG_AA);
  expect(violations, name).toEqual([]);
}

export const shoot = (target: Page, name: string) => target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
