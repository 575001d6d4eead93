import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';

/**
 * The dashboard web app (dashboard/, built by `vite build` into DASHBOARD_DIR) served at `/admin/`
 * (contract section 7): its page at `/admin/` and at its client-side routes `/admin/app/…`, its
 * content-hashed files under `/admin/assets/…`. Plain Fastify routes, not Nest controllers: they are
 * no part of the API (no principal, no OpenAPI entry) and cannot clash with `/admin/auth`,
 * `/admin/insights` or `/admin/data-hub`. Without a build, the page answers 503 `dashboard_not_built`.
 */
export function registerDashboardWeb(fastify: FastifyInstance, dir: string): void {
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const html = await readFile(join(dir, 'index.html')).catch(() => null);
    if (!html) return notBuilt(request, reply);
    return reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .send(html);
  };
  fastify.get('/admin/', page);
  fastify.get('/admin/app/*', page);

  fastify.get('/admin/assets/:file', async (request: FastifyRequest<{ Params: { file: string } }>, reply) => {
    const { file } = request.params;
    const type = CONTENT_TYPES[extname(file)];
    // Vite writes its assets flat, named `name-hash.ext`: anything else (a path, a dot file) is not one.
    if (!type || !/^[\w-]+(\.[\w-]+)*$/.test(file)) return notFound(request, reply);
    const path = join(dir, 'assets', file);
    const gzipped = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && (await isFile(`${path}.gz`));
    const served = gzipped ? `${path}.gz` : path;
    const size = await fileSize(served);
    if (size === null) return notFound(request, reply);
    reply
      .header('Content-Type', type)
      .header('Content-Length', size)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding')
      .header('X-Content-Type-Options', 'nosniff');
    if (gzipped) reply.header('Content-Encoding', 'gzip');
    return reply.send(createReadStream(served));
  });
}

/** Only the service's own origin: no CDN, nothing fetched from elsewhere. ECharts' tooltips set inline styles. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

async function fileSize(path: string): Promise<number | null> {
  const info = await stat(path).catch(() => null);
  return info?.isFile() ? info.size : null;
}

async function isFile(path: string): Promise<boolean> {
  return (await fileSize(path)) !== null;
}

function problem(request: FastifyRequest, reply: FastifyReply, status: number, code: string, en: string, ar: string) {
  return reply
    .status(status)
    .header('Content-Type', 'application/problem+json')
    .header('Cache-Control', 'no-store')
    .send({ type: 'about:blank', title: en, status, code, message_en: en, message_ar: ar, requestId: request.id });
}

function notBuilt(request: FastifyRequest, reply: FastifyReply) {
  return problem(
    request,
    reply,
    503,
    'dashboard_not_built',
    'The dashboard web app is not built: run `npm run build` (npm install builds it too).',
    'لم تُبنَ واجهة لوحة التحكم: شغّل `npm run build` (يبنيها npm install أيضًا).',
  );
}

function notFound(request: FastifyRequest, reply: FastifyReply) {
  return problem(request, reply, 404, 'not_found', 'No such file.', 'لا يوجد ملف بهذا الاسم.');
}
