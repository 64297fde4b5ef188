import { Router } from 'express';
import type { ApiDeps } from '../deps';

export function modelsRouter(_deps: ApiDeps): Router {
  return Router();
}
