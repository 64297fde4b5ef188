import { Router } from 'express';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponses, registry } from '../openapi';
import { AccountSchema, LedgerPageSchema, ListLedgerQuerySchema, SPEND_DAYS } from '../../contracts/http/account';
import { parseWith } from '../validate';
import type { AccountService } from '../../accounts/accountService';

const security = [{ [bearerAuth.name]: [] }];

registry.registerPath({
  method: 'get',
  path: '/v1/account',
  operationId: 'getAccount',
  tags: ['Account'],
  summary: 'Your account',
  description:
    'Balance, plan, the concurrent-job limit and the jobs `pending` or `processing` now, the key of this request ' +
    `(never the key itself), and the micro-cents charged and refunded on each of the last ${SPEND_DAYS} UTC days. ` +
    'Scope: `check_status`.',
  security,
  responses: {
    200: { description: 'The account', content: { 'application/json': { schema: AccountSchema } } },
    ...errorResponses(401, 403),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/account/ledger',
  operationId: 'listLedger',
  tags: ['Account'],
  summary: "Your account's ledger",
  description:
    'Every change of the balance (charges, refunds, top-ups), newest first. Follow `nextCursor` while `hasMore`; no ' +
    'entry is skipped or repeated. Scope: `check_status`.',
  security,
  request: { query: ListLedgerQuerySchema },
  responses: {
    200: { description: 'One page of ledger entries', content: { 'application/json': { schema: LedgerPageSchema } } },
    ...errorResponses(400, 401, 403),
  },
});

export function accountRouter(deps: ApiDeps, accounts: AccountService): Router {
  const router = Router();
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });

  router.get('/v1/account', statusScope, async (_req, res) => {
    res.json(await accounts.overview(getAuth(res).apiKey));
  });

  router.get('/v1/account/ledger', statusScope, async (req, res) => {
    const query = parseWith(ListLedgerQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    res.json(await accounts.ledger(getAuth(res).account.id, query));
  });

  return router;
}
