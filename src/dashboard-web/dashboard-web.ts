import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

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

  // Vite names each asset by its content's hash, so a file never changes: cached for a year, and the
  // `.gz` written beside it at build time is sent to browsers that accept gzip.
  void fastify.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: '/admin/assets/',
    preCompressed: true,
    maxAge: '365d',
    immutable: true,
    index: false,
    serveDotFiles: false,
    setHeaders: (reply) => reply.header('X-Content-Type-Options', 'nosniff'),
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

function notBuilt(request: FastifyRequest, reply: FastifyReply) {
  const en = 'The dashboard web app is not built: run `npm run build` (npm install builds it too).';
  const ar = 'لم تُبنَ واجهة لوحة التحكم: شغّل `npm run build` (يبنيها npm install أيضًا).';
  return reply.status(503).header('Content-Type', 'application/problem+json').header('Cache-Control', 'no-store').send({
    type: 'about:blank',
    title: en,
    status: 503,
    code: 'dashboard_not_built',
    message_en: en,
    message_ar: ar,
    requestId: request.id,
  });
}
