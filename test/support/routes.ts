import { RequestMethod, type INestApplication, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../src/auth/access/access-rule.js';

export interface DiscoveredRoute {
  /** Upper-case HTTP method, e.g. `GET`. */
  method: string;
  /** Fastify form, e.g. `/v1/catalogue/products/:idOrSlug`. */
  path: string;
  /** OpenAPI form, e.g. `/v1/catalogue/products/{idOrSlug}`. */
  openApiPath: string;
  controller: Type;
  handlerName: string;
  /** The rule the access guard sees (handler first, then class), or undefined. */
  rule: AccessRule | undefined;
  /** The rule declared on the handler itself. */
  handlerRule: unknown;
  /** The rule declared on the controller class. */
  classRule: unknown;
}

function asList(value: unknown): string[] {
  if (value === undefined || value === null) return [''];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function join(...parts: string[]): string {
  const path = `/${parts.filter(Boolean).join('/')}`.replace(/\/+/g, '/');
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

/** Every route the Nest application maps, read from controller metadata of every module. */
export function discoverRoutes(app: INestApplication): DiscoveredRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const reflector = app.get(Reflector);
  const controllers = new Set<Type>();
  for (const wrapper of discovery.getControllers()) {
    if (wrapper.metatype) controllers.add(wrapper.metatype as Type);
  }
  const routes: DiscoveredRoute[] = [];
  for (const controller of controllers) {
    const bases = asList(Reflect.getMetadata(PATH_METADATA, controller));
    for (const handlerName of scanner.getAllMethodNames(controller.prototype)) {
      const handler = controller.prototype[handlerName] as object;
      const routePaths = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (routePaths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      for (const base of bases) {
        for (const routePath of asList(routePaths)) {
          const path = join(base, routePath);
          routes.push({
            method,
            path,
            openApiPath: path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
            controller,
            handlerName,
            rule: reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler as never, controller]),
            handlerRule: Reflect.getMetadata(ACCESS_RULE, handler),
            classRule: Reflect.getMetadata(ACCESS_RULE, controller),
          });
        }
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/** A concrete URL for a route: every `:param` replaced by `value`. */
export function concreteUrl(route: DiscoveredRoute, value = 'anything'): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, value);
}
