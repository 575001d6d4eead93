import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const ROOT = import.meta.dirname;

/**
 * Writes `file.gz` beside each built script and stylesheet (the service sends it to browsers that accept
 * gzip) and prints what the browser downloads: the JavaScript shipped, gzipped.
 */
function gzipAssets(): Plugin {
  let outDir = '';
  return {
    name: 'gzip-assets',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    writeBundle(_options, bundle) {
      let js = 0;
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const zipped = gzipSync(readFileSync(join(outDir, name)), { level: 9 });
        writeFileSync(join(outDir, `${name}.gz`), zipped);
        if (name.endsWith('.js')) js += zipped.length;
      }
      this.info(`JavaScript shipped: ${(js / 1024).toFixed(1)} KB gzipped`);
    },
  };
}

/** The merchant dashboard (issue 13): served by the service at /admin/, its assets under /admin/assets/. */
export default defineConfig({
  root: ROOT,
  base: '/admin/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [gzipAssets()],
  build: {
    outDir: process.env.DASHBOARD_OUT_DIR ?? resolve(ROOT, '..', 'dist', 'dashboard'),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 800,
  },
});
