import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../../src/db/prisma';
import { DEFAULT_CATALOG_DIR, loadCatalog } from '../../../src/catalog/catalogFiles';

/** Slugs and facts of the seeded catalog, read from the files the seed applied. */
export const seeded = loadCatalog();
export const seededSlugs = new Set(seeded.models.map((m) => m.slug));
export const onlySeeded = <T>(items: T[], slugOf: (item: T) => string): T[] => items.filter((i) => seededSlugs.has(slugOf(i)));

export const T2I = 'pixelforge/forge-pro/text-to-image';
export const I2V_ELEMENTS = 'motionworks/reel-2/image-to-video-elements';

/**
 * A catalog directory holding one private test provider and model (owned by one test, invisible to
 * everyone else), plus copies of the real categories and capability groups. Seeding it never
 * disturbs the rows other tests rely on.
 */
export function writeTestCatalog(options: { name?: string; baseMicroCents?: number; v2Status?: string } = {}) {
  const suffix = randomBytes(4).toString('hex');
  const providerId = `test-${suffix}`;
  const slug = `${providerId}/probe/text-to-image`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-test-'));
  fs.mkdirSync(path.join(dir, 'models'));
  fs.cpSync(path.join(DEFAULT_CATALOG_DIR, 'schemas'), path.join(dir, 'schemas'), { recursive: true });
  for (const f of ['categories.json', 'capability-groups.json']) fs.copyFileSync(path.join(DEFAULT_CATALOG_DIR, f), path.join(dir, f));

  const write = (o: { name?: string; baseMicroCents?: number; v2Status?: string }) => {
    fs.writeFileSync(
      path.join(dir, 'providers.json'),
      JSON.stringify([
        {
          id: providerId,
          name: `Test Provider ${suffix}`,
          description: 'Test provider',
          logoUrl: 'https://example.com/logo.svg',
          website: 'https://example.com',
          color: '#123456',
        },
      ]),
    );
    const version = (versionId: string, status: string, releasedAt: string) => ({
      versionId,
      status,
      releasedAt,
      inputSchema: 'schemas/text-to-image.input.json',
      outputSchema: 'schemas/image.output.json',
      pricing: { baseMicroCents: o.baseMicroCents ?? 10000, unit: 'per_image', unitsField: 'num_images' },
      rateLimits: { requestsPerMinute: 10, requestsPerDay: 100 },
      processingSeconds: 30,
    });
    fs.writeFileSync(
      path.join(dir, 'models', `${providerId}.json`),
      JSON.stringify([
        {
          slug,
          name: o.name ?? 'Probe',
          description: 'Test model',
          category: 'image',
          capability: 'text-to-image',
          visibility: 'private',
          tags: ['test'],
          rating: { average: 1, count: 1 },
          versions: [version('v2', o.v2Status ?? 'active', '2025-02-01T00:00:00Z'), version('v1', 'active', '2025-01-01T00:00:00Z')],
        },
      ]),
    );
  };
  write(options);

  return {
    dir,
    slug,
    providerId,
    rewrite: write,
    async cleanup(prisma: PrismaClient) {
      await prisma.model.deleteMany({ where: { providerId } });
      await prisma.provider.deleteMany({ where: { id: providerId } });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
