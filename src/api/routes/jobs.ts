import { Router } from 'express';
import type { ApiDeps } from '../deps';

export function jobsRouter(_deps: ApiDeps): Router {
  return Router();
}
