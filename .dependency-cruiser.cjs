// @ts-check
/**
 * The layers of the code, lowest first. A module may import modules of its own layer and of the layers below it,
 * never of a layer above (type-only imports count: they are dependencies too). Every module of src/, workflows/ and
 * activities/ belongs to exactly one layer, and no import cycle is allowed anywhere. test/static/layers.test.ts runs
 * these rules; `npx depcruise src workflows activities` shows the same from the command line.
 */

/** @type {{ name: string, comment: string, paths: string[] }[]} */
const LAYERS = [
  {
    name: 'shared',
    comment: 'vocabulary and pure modules the workflows may import too: error codes, scopes, statuses, media types',
    paths: ['^src/shared/'],
  },
  { name: 'lib', comment: 'small generic helpers that know nothing of this service', paths: ['^src/lib/'] },
  { name: 'contracts', comment: 'the HTTP and workflow contracts: schemas, names, queues, ids', paths: ['^src/contracts/'] },
  {
    name: 'platform',
    comment: 'configuration, logging, the network guard, the database, file storage and the Temporal client',
    paths: ['^src/config\\.ts$', '^src/logger\\.ts$', '^src/net/', '^src/db/(?!seed\\.ts$)', '^src/storage/', '^src/temporal/'],
  },
  { name: 'domain', comment: 'pure business rules (pricing, input validation) and the one ledger writer', paths: ['^src/domain/', '^src/ledger/'] },
  {
    name: 'features',
    comment: 'use cases and their stores, one folder per concept; they may use each other without forming a cycle',
    paths: [
      '^src/accounts/',
      '^src/admin/',
      '^src/batches/',
      '^src/catalog/',
      '^src/destinations/',
      '^src/dialects/',
      '^src/erasure/',
      '^src/jobs/',
      '^src/observability/',
      '^src/outputs/',
      '^src/providers/',
      '^src/provenance/',
      '^src/uploads/',
      '^src/webhooks/',
    ],
  },
  {
    name: 'programs',
    comment: 'what runs: the HTTP API, the workers with their activities and workflows, the CLI, the seed',
    paths: ['^src/api/', '^src/workers/', '^src/cli/', '^src/db/seed\\.ts$', '^activities/', '^workflows/'],
  },
];

const layerPattern = (layer) => `(${layer.paths.join('|')})`;
const allLayers = `(${LAYERS.map(layerPattern).join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that cannot be understood, loaded or tested one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      severity: 'error',
      comment: 'Every module of src/, workflows/ and activities/ belongs to a layer of .dependency-cruiser.cjs: add its folder to one.',
      from: { path: '^(src|workflows|activities)/', pathNot: allLayers },
      to: {},
    },
    ...LAYERS.slice(0, -1).map((layer, index) => ({
      name: `${layer.name}-imports-no-layer-above`,
      severity: /** @type {const} */ ('error'),
      comment: `The ${layer.name} layer (${layer.comment}) may not import ${LAYERS.slice(index + 1).map((l) => l.name).join(', ')}.`,
      from: { path: layerPattern(layer) },
      to: { path: `(${LAYERS.slice(index + 1).map(layerPattern).join('|')})` },
    })),
    {
      name: 'api-imported-by-no-one',
      severity: 'error',
      comment: 'The HTTP API is the outermost program: nothing else imports src/api.',
      from: { path: '^(src|workflows|activities)/', pathNot: '^src/api/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'service-imports-no-sdk',
      severity: 'error',
      comment:
        'The service never imports its own published SDK (@genmedia/client): what it needs, such as money (src/shared/money.ts), is its own. Only the CLI, a client of the API, is built on it.',
      from: { path: '^(src|workflows|activities)/', pathNot: '^src/cli/' },
      to: { path: '(^clients/typescript/|@genmedia/client)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|console/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
