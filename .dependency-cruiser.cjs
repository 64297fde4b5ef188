// @ts-check
/**
 * The layers of the code, lowest first. A module may import modules of its own layer and of the layers below it,
 * never of a layer above (type-only imports count: they are dependencies too). Every module of src/, workflows/ and
 * activities/ belongs to exactly one layer, and no import cycle is allowed anywhere: not between modules, and not
 * between the folders of src/ (a layer's folders may use each other one way only; test/static/layers.test.ts finds
 * folder cycles in the cruise's result, since a rule here sees modules, not folders). The features are layers of their
 * own, ordered too: a lower feature that needs something of a higher one is handed it (a function or port passed in
 * where the programs wire the features) or hears of it by an event, and never imports it.
 * test/static/layers.test.ts runs these rules; `npx depcruise src workflows activities` shows the same from the
 * command line.
 */

/**
 * A feature's tuning module (src/<feature>/tuning.ts, src/<feature>/<part>/tuning.ts) is of the tuning layer, not of
 * its folder's: the rules below leave it out where they speak of the layers above the tuning.
 */
const TUNING_PATH = '(^src/[^/]+/tuning\\.ts$|^src/[^/]+/[^/]+/tuning\\.ts$)';

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
    name: 'tuning',
    comment:
      "each feature's timeouts, intervals and limits with their defaults (its tuning.ts, src/lib/tuning.ts), which the configuration gathers: in the feature's folder, and below the platform",
    paths: [TUNING_PATH],
  },
  {
    name: 'platform',
    comment: 'configuration, logging, the network guard, the database, file storage, the Temporal client, metrics and tracing',
    paths: ['^src/config\\.ts$', '^src/logger\\.ts$', '^src/net/', '^src/db/(?!seed\\.ts$)', '^src/storage/', '^src/temporal/', '^src/observability/'],
  },
  { name: 'domain', comment: 'pure business rules (pricing, input validation) and the one ledger writer', paths: ['^src/domain/', '^src/ledger/'] },
  {
    name: 'base-features',
    comment:
      "the features every other builds on: the catalog, accounts, uploads, the providers and the audit log; with the catalog, each dialect's entry of a model file (src/dialects/<name>/catalogSchema.ts), kept with its dialect and read by the catalog when it loads",
    paths: ['^src/accounts/', '^src/audit/', '^src/catalog/', '^src/providers/', '^src/uploads/', '^src/dialects/[^/]+/catalogSchema\\.ts$'],
  },
  { name: 'jobs-feature', comment: 'jobs: submission, admission, the job store and record, events, cancellation', paths: ['^src/jobs/'] },
  {
    name: 'output-features',
    comment: "what becomes of a job's outputs: storing, retention and delivery, the accounts' destinations, provenance",
    paths: ['^src/outputs/', '^src/provenance/'],
  },
  {
    name: 'top-features',
    comment: 'the features built on jobs and outputs: batches, pipelines, the dialects, erasure, the operator API, webhooks',
    paths: ['^src/admin/', '^src/batches/', '^src/dialects/(?![^/]+/catalogSchema\\.ts$)', '^src/erasure/', '^src/pipelines/', '^src/webhooks/'],
  },
  {
    name: 'programs',
    comment: 'what runs: the HTTP API, the workers with their activities and workflows, the CLI, the seed',
    paths: ['^src/api/', '^src/workers/', '^src/cli/', '^src/db/seed\\.ts$', '^activities/', '^workflows/'],
  },
];

const layerPattern = (layer) => `(${layer.paths.join('|')})`;
const TUNING_INDEX = LAYERS.findIndex((layer) => layer.name === 'tuning');
const allLayers = `(${LAYERS.map(layerPattern).join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
const configuration = {
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
      // A tuning module matches its feature's folder too: as such, it is beside the layer that may import it.
      from: index >= TUNING_INDEX ? { path: layerPattern(layer), pathNot: TUNING_PATH } : { path: layerPattern(layer) },
      to: index >= TUNING_INDEX ? { path: `(${LAYERS.slice(index + 1).map(layerPattern).join('|')})`, pathNot: TUNING_PATH } : { path: `(${LAYERS.slice(index + 1).map(layerPattern).join('|')})` },
    })),
    {
      name: 'tuning-imports-no-layer-above',
      severity: 'error',
      comment: "A feature's tuning module holds values and their bounds: it imports the vocabulary and src/lib, nothing of the platform or the features.",
      from: { path: TUNING_PATH },
      to: { path: `(${LAYERS.slice(TUNING_INDEX + 1).map(layerPattern).join('|')})`, pathNot: TUNING_PATH },
    },
    {
      name: 'api-imported-by-no-one',
      severity: 'error',
      comment: 'The HTTP API is the outermost program: nothing else imports src/api.',
      from: { path: '^(src|workflows|activities)/', pathNot: '^src/api/' },
      to: { path: '^src/api/', pathNot: TUNING_PATH },
    },
    {
      name: 'api-imports-no-activities',
      severity: 'error',
      comment: 'The HTTP API starts and signals workflows through src/contracts; the activities are the workers\' own, never run or imported by the API.',
      from: { path: '^src/api/' },
      to: { path: '^activities/' },
    },
    {
      name: 'activities-import-no-program',
      severity: 'error',
      comment: 'Activities are built by the workers from what they are handed: they import features and the platform, never the API, the CLI or the workers.',
      from: { path: '^activities/' },
      to: { path: '^src/(api|cli|workers)/' },
    },
    {
      name: 'cli-imports-no-workers',
      severity: 'error',
      comment: 'The CLI administers the database and calls the API; it runs no worker and imports nothing of src/workers.',
      from: { path: '^src/cli/' },
      to: { path: '^src/workers/' },
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

// The layers themselves, for test/static/layers.test.ts, which finds cycles between the folders of each layer. Not
// enumerable: dependency-cruiser refuses a configuration with keys of its own.
Object.defineProperty(configuration, 'layers', { value: LAYERS, enumerable: false });

module.exports = configuration;
