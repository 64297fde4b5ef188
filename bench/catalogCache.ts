/**
 * GET /v1/models served from the per-visibility cache versus rebuilt from PostgreSQL.
 * Misses and hits alternate request by request (a revision bump forces the miss), so both
 * sides see the same machine load; the figure that matters is the ratio.
 */
import { bumpCatalogRevision } from '../src/catalog/revision';
import { createTestAccount } from '../test/support/accounts';
import { startTestApi } from '../test/support/api';
import { fmt, summarize, timed } from './stats';

const ROUNDS = 200;

export async function catalogCacheBench(): Promise<void> {
  const api = await startTestApi({ LOG_LEVEL: 'error' });
  try {
    const { apiKey } = await createTestAccount(api.deps.prisma, { scopes: ['list_models'] });
    const get = async () => {
      const res = await fetch(`${api.url}/v1/models`, { headers: { 'x-api-key': apiKey } });
      if (res.status !== 200) throw new Error(`GET /v1/models answered ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 20; i++) await get(); // warm-up: JIT, connection pool
    const misses: number[] = [];
    const hits: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await bumpCatalogRevision(api.deps.prisma);
      misses.push((await timed(get))[1]);
      hits.push((await timed(get))[1]);
    }
    const miss = summarize(misses);
    const hit = summarize(hits);
    console.log(`catalog cache: GET /v1/models, ${ROUNDS} rounds, miss and hit alternating`);
    console.log(`  miss (rebuilt from PostgreSQL)  p50 ${fmt(miss.p50)}  p95 ${fmt(miss.p95)}`);
    console.log(`  hit  (cached per visibility)    p50 ${fmt(hit.p50)}  p95 ${fmt(hit.p95)}`);
    console.log(`  ratio miss/hit at p50: ${(miss.p50 / hit.p50).toFixed(1)}x`);
  } finally {
    await api.stop();
  }
}
