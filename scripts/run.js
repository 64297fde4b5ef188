#!/usr/bin/env node
'use strict';
// Entry point of `npm run dev`, `npm test`, `npm run build` and `npm run bootstrap`. Plain Node with built-ins only: it
// runs before node_modules exist.

const log = require('./lib/log');
const reexec = require('./lib/reexec');

const USAGE = `usage: node scripts/run.js <command>
  dev                  bootstrap, then run the whole stack until Ctrl-C
  cluster              the production shape until Ctrl-C: Temporal server on PostgreSQL, two APIs, separate workers
  test [vitest args]   bootstrap, start a throw-away stack, run vitest, tear it down (no stack, and only the
                       node packages, when the projects run need no services: --project unit --project workflows)
  bench [names]        bootstrap, start a throw-away stack, run the benchmarks in bench/, tear it down
  fuzz                 bootstrap, start a throw-away stack, fuzz the API from its OpenAPI document (thousands of cases)
  chaos [--seed N]     bootstrap, then 1,000 jobs on a throw-away stack while processes are killed and restarted
  build                dist/ from scratch (the Prisma client first when it is not generated); needs node_modules only
  bootstrap [--json] [--for-tests]
                       only make sure every dependency is installed (--for-tests: also what the tests need)`;

async function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dev':
      await require('./dev').dev();
      return undefined;
    case 'cluster':
      await require('./dev').dev({ cluster: true });
      return undefined;
    case 'test':
      return require('./test').test(rest);
    case 'bench':
      return require('./test').bench(rest);
    case 'chaos':
      return require('./chaos').chaos(rest);
    case 'fuzz':
      // The fuzz test of `npm test`, with many more examples per operation (at least 5,000 cases in all).
      process.env.GENMEDIA_FUZZ_EXAMPLES = process.env.GENMEDIA_FUZZ_EXAMPLES || '300';
      return require('./test').test(['test/system/api/fuzz.test.ts', ...rest]);
    case 'build':
      // A failed step (tsc's errors) is its message; a stack would only bury it.
      return require('./lib/build')
        .build()
        .then(
          () => 0,
          (err) => {
            log.error(err.message);
            return 1;
          },
        );
    case 'bootstrap': {
      const result = require('./lib/bootstrap').bootstrap({ forTests: rest.includes('--for-tests') });
      if (rest.includes('--json')) console.log(JSON.stringify(result));
      return 0;
    }
    default:
      console.error(USAGE);
      return command === undefined || command === '--help' ? 0 : 2;
  }
}

function fail(err) {
  log.error(err instanceof log.SetupError ? err.message : err.stack || String(err));
  process.exit(1);
}

// The Node this script was started on runs the command, or hands it over to the project's Node (scripts/lib/reexec.js).
new Promise((resolve) => resolve(reexec.decide()))
  .then((how) => {
    if (how === 'reexec') return reexec.reexec();
    reexec.takeHandover();
    return main(process.argv.slice(2));
  })
  .then((code) => {
    if (code !== undefined) process.exit(code);
  }, fail);
