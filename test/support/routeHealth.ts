/**
 * Route health is shared by every test file of a run, as by every worker of a deployment (docs/routing.md): another
 * file's injected outages may leave a route unhealthy for its window, and a test that needs the route tried first
 * waits until it is healthy again before it submits.
 */
import type { PrismaClient } from '@prisma/client';
import { RoutingFile } from '../../src/catalog/catalogFiles';
import { unhealthyBecause } from '../../src/jobs/routePlanning';
import { readRouteStats } from '../../src/jobs/routeStats';
import { eventually } from './eventually';

/** A test timeout that covers a wait for the catalog's default health window to forget other files' outages. */
export const ROUTE_HEALTH_WAIT_MS = 420_000;

/** Resolves once `providerId` is a healthy route of `modelSlug`'s active version (the catalog's health policy). */
export async function untilRouteHealthy(prisma: PrismaClient, modelSlug: string, providerId: string): Promise<void> {
  const version = await prisma.modelVersion.findFirstOrThrow({ where: { model: { slug: modelSlug }, status: 'active' } });
  const { health } = RoutingFile.parse(version.routing ?? {});
  await eventually(
    async () => {
      const stats = (await readRouteStats(prisma, modelSlug, [providerId], health.windowSeconds)).get(providerId);
      return unhealthyBecause(stats, health) === null ? true : undefined;
    },
    (health.windowSeconds + 30) * 1000,
    1_000,
    `${providerId} a healthy route of ${modelSlug}`,
  );
}
