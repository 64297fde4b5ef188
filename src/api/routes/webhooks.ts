import { Router } from 'express';
import type { ApiDeps } from '../deps';

export function webhooksRouter(_deps: ApiDeps): Router {
  return Router();
}
