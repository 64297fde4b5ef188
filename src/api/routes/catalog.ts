import { Router } from 'express';
import type { ApiDeps } from '../deps';

export function catalogRouter(_deps: ApiDeps): Router {
  return Router();
}
