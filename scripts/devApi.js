'use strict';
// The API as `npm run dev` and `npm run cluster` run it: src/api/server.ts's own start, given on the command line what
// only the dev stack wants of the web console, none of it read from the environment:
//   --console-sources <port>  the console served from its sources through Vite, hot reload on a WebSocket on <port>
//   --dev-key-file <file>     the sign-in form filled in with the dev key the seed saved in <file> (for a browser on
//                             this machine; never with NODE_ENV=production)
//   --built                   the JavaScript of `npm run build` in dist/ (the cluster); else the sources, through the
//                             tsx loader the supervisor starts it with

const fs = require('node:fs');
const { parseArgs } = require('node:util');

const { values } = parseArgs({
  options: { built: { type: 'boolean', default: false }, 'console-sources': { type: 'string' }, 'dev-key-file': { type: 'string' } },
});

function devApiKey(file) {
  if (file === undefined) return undefined;
  const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof saved.apiKey !== 'string') throw new Error(`${file} holds no apiKey`);
  return saved.apiKey;
}

function hmrPort(raw) {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--console-sources takes a port, got "${raw}"`);
  return port;
}

const { runApi } = values.built ? require('../dist/src/api/server.js') : require('../src/api/server.ts');
const sources = values['console-sources'];
const key = devApiKey(values['dev-key-file']);
runApi({ console: { ...(sources !== undefined ? { sources: { hmrPort: hmrPort(sources) } } : {}), ...(key !== undefined ? { devApiKey: key } : {}) } }).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
