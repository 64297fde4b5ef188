import type { RequestHandler } from 'express';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A router and the path prefixes all of its routes lie under, such as `/v1/jobs`. */
export type PrefixedRouter = readonly [prefixes: readonly string[], router: RequestHandler];

/**
 * The routers as one layer of the app: a request enters, in the order given, only the routers it can reach, those with
 * a prefix its path is or lies beneath (matched as Express matches routes: on the path as sent, ignoring case), and
 * skips the others without having each of their routes tried (a `GET /v1/jobs` tried about twenty routes of other
 * routers before its own, each an Express layer). A router is entered just as `app.use(router)` enters it, so
 * `req.baseUrl`, `req.route` and the route labels of the metrics and traces stay what they were; an error it passes
 * on goes straight to the app's error handlers, as the routers after it would have let it through.
 */
export function routersByPrefix(routers: readonly PrefixedRouter[]): RequestHandler & { readonly routers: readonly PrefixedRouter[] } {
  const compiled = routers.map(([prefixes, router]) => {
    if (prefixes.length === 0 || prefixes.some((prefix) => !prefix.startsWith('/') || prefix.endsWith('/'))) {
      throw new Error(`router prefixes are paths such as /v1/jobs, not ${JSON.stringify(prefixes)}`);
    }
    return { under: new RegExp(`^(?:${prefixes.map(escapeRegExp).join('|')})(?:/|$)`, 'i'), router };
  });
  const dispatch: RequestHandler = (req, res, next) => {
    let index = 0;
    const proceed = (err?: unknown): void => {
      if (err) {
        next(err);
        return;
      }
      const path = req.path;
      while (index < compiled.length) {
        const { under, router } = compiled[index++]!;
        if (under.test(path)) {
          router(req, res, proceed);
          return;
        }
      }
      next();
    };
    proceed();
  };
  // What it dispatches to, for reading: the OpenAPI coverage test lists the routes through it.
  return Object.assign(dispatch, { routers });
}
