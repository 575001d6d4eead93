// The precli script, after check-node.cjs: `npm run cli` builds only when a source changed since the last
// build (nest build and the dashboard's vite build take about 8 s; a call once built takes well under 2).
// Each part of the build is compared by modification times: its newest source (a folder's own time counts,
// so a deleted or renamed file does too) against the oldest file it built.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const TOOLCHAIN = ['package.json', 'package-lock.json'];

/** What `npm run build` builds, each from its sources into its own folder of dist/. */
export const PARTS = {
  service: {
    sources: ['src', 'mikro-orm.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', ...TOOLCHAIN],
    built: 'dist/src',
  },
  dashboard: { sources: ['dashboard', ...TOOLCHAIN], built: 'dist/dashboard' },
};

/** The times of every file and folder under `path` (itself included); none when it does not exist. */
function times(path) {
  let info;
  try {
    info = statSync(path);
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  if (!info.isDirectory()) return [info.mtimeMs];
  return [info.mtimeMs, ...readdirSync(path).flatMap((entry) => times(join(path, entry)))];
}

/** Whether a part was never built, or a source of it changed after its build. */
export function stale(part, root = ROOT) {
  const built = times(join(root, part.built));
  if (built.length <= 1) return true;
  const newestSource = Math.max(...part.sources.flatMap((source) => times(join(root, source))));
  // The folders of the build are rewritten by the build itself: its files say when it ran.
  return newestSource > Math.min(...built.slice(1));
}

/** The npm script that brings the build up to date, or null when it is. */
export function neededBuild(root = ROOT) {
  // nest build empties dist/ first, the built dashboard with it: a build of the service is the whole build.
  if (stale(PARTS.service, root)) return 'build';
  if (stale(PARTS.dashboard, root)) return 'build:dashboard';
  return null;
}

if (import.meta.main) {
  const script = neededBuild();
  if (script) {
    const { status } = spawnSync('npm', ['run', '--silent', script], { cwd: ROOT, stdio: 'inherit' });
    process.exit(status ?? 1);
  }
}
