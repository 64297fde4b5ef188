'use strict';
// Task-queue fairness (docs/operators.md, "Fair share and priority"): the dynamic configuration every Temporal this
// project starts gets, the dev server as command-line values and the server on PostgreSQL in its dynamicconfig.yaml.

/**
 * The new matcher with fairness, and one partition per task queue: fairness is kept within a partition, and with the
 * few pollers of a provider queue, tasks spread over several partitions are dispatched from whichever has a poller.
 */
const FAIRNESS_DYNAMIC_CONFIG = {
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** `temporal server start-dev` arguments. */
function devServerArgs() {
  return Object.entries(FAIRNESS_DYNAMIC_CONFIG).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}

/** Entries of a server's dynamicconfig.yaml, each a global value. */
function dynamicConfigYaml() {
  return Object.entries(FAIRNESS_DYNAMIC_CONFIG)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}

module.exports = { FAIRNESS_DYNAMIC_CONFIG, devServerArgs, dynamicConfigYaml };
