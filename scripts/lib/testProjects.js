'use strict';
// The vitest projects (vitest.config.mts builds them from this table) and what a run of some of them needs, so that
// `npm test` installs and starts only that.

const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('./paths');

/**
 * services: the throw-away PostgreSQL, Temporal and MinIO of `npm test` (and the built console the API serves).
 * extras: the test-only tools (Chromium, tmux, Compose, Schemathesis, the Python clients, Redocly CLI, promtool, Helm,
 * kubeconform and its schemas, the Temporal server build).
 * temporalCli: the Temporal CLI, whose dev server each workflow test file starts for itself.
 */
const PROJECTS = {
  unit: { dir: 'test/unit', services: false, extras: false, temporalCli: false },
  workflows: { dir: 'test/workflows', services: false, extras: false, temporalCli: true },
  static: { dir: 'test/static', services: false, extras: false, temporalCli: false },
  integration: { dir: 'test/integration', services: true, extras: false, temporalCli: true },
  system: { dir: 'test/system', services: true, extras: true, temporalCli: true },
};

/** The loop of `npm run test:unit`: everything that runs in seconds without services. */
const FAST = ['unit', 'workflows'];

/** vitest options that take a value as the next argument, so that value is not read as a file filter. */
const VALUE_OPTIONS = new Set([
  '-t', '--testNamePattern', '--reporter', '--outputFile', '--shard', '--retry', '--bail', '--maxWorkers', '--testTimeout',
  '--hookTimeout', '-c', '--config', '--exclude', '--pool', '--environment', '--dir', '-r', '--root', '--seed',
  '--sequence.seed', '--tags-filter',
]);

function testFiles(root = REPO_ROOT) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) found.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  walk(path.join(root, 'test'));
  return found;
}

function projectOf(file) {
  return Object.keys(PROJECTS).find((name) => file.startsWith(`${PROJECTS[name].dir}/`)) ?? null;
}

/** Splits vitest arguments into the projects named with --project and the file filters. */
function parseArgs(args) {
  const projects = [];
  const filters = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--project') projects.push(args[++i]);
    else if (arg.startsWith('--project=')) projects.push(arg.slice('--project='.length));
    else if (VALUE_OPTIONS.has(arg)) i += 1;
    else if (!arg.startsWith('-')) filters.push(arg);
  }
  return { projects: projects.filter(Boolean), filters };
}

/** A file filter matches as vitest's does: a part of the file's path, or a path to it or to a folder above it. */
function matches(file, filter, root) {
  const lower = file.toLowerCase();
  const relative = path.relative(root, path.resolve(root, filter)).split(path.sep).join('/').toLowerCase();
  return lower.includes(filter.toLowerCase()) || (relative !== '' && lower.startsWith(relative));
}

/**
 * The projects a `vitest run` with these arguments runs, so the run installs and starts what they need. Anything
 * not understood counts as every project: a run may get more than it needs, never less.
 */
function projectsOfRun(args, root = REPO_ROOT) {
  const { projects, filters } = parseArgs(args);
  let names = Object.keys(PROJECTS);
  if (projects.length > 0) {
    if (projects.some((p) => !(p in PROJECTS))) return names; // a pattern such as 'unit*' or '!system'
    names = names.filter((name) => projects.includes(name));
  }
  if (filters.length === 0) return names;
  const selected = new Set(testFiles(root).filter((file) => filters.some((f) => matches(file, f, root))).map(projectOf));
  return selected.size === 0 ? names : names.filter((name) => selected.has(name));
}

/** What a run of these projects needs from the machine and the stack. */
function needsOf(names) {
  const needs = { services: false, extras: false, temporalCli: false };
  for (const name of names) for (const key of Object.keys(needs)) needs[key] = needs[key] || PROJECTS[name][key];
  return needs;
}

module.exports = { PROJECTS, FAST, parseArgs, projectsOfRun, needsOf, testFiles };
