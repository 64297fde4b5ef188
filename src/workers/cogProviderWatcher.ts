/**
 * Serves every provider with the `cog` adapter from one worker process: a provider worker is started for each one in
 * the catalog, and for each one an operator imports later (`genmedia admin models import-cog`), within one interval,
 * so a newly attached GPU server takes jobs without restarting anything.
 */
import type { Logger } from 'pino';

export interface CogProviderWatcherDeps {
  /** The ids of the active providers with the cog adapter. */
  listCogProviders(): Promise<string[]>;
  /** Starts serving one provider's task queue; called once per id. */
  startWorker(providerId: string): Promise<void>;
  intervalMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

export interface CogProviderWatcher {
  /** Resolves once the first look at the catalog has started its workers. */
  ready: Promise<void>;
  stop(): void;
}

export function watchCogProviders(deps: CogProviderWatcherDeps): CogProviderWatcher {
  const served = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const look = async () => {
    try {
      for (const providerId of await deps.listCogProviders()) {
        if (served.has(providerId) || stopped) continue;
        served.add(providerId);
        try {
          await deps.startWorker(providerId);
          deps.logger.info({ providerId }, 'serving a self-hosted Cog provider');
        } catch (err) {
          served.delete(providerId);
          deps.logger.warn({ err, providerId }, 'could not start the worker of a Cog provider; trying again');
        }
      }
    } catch (err) {
      deps.logger.warn({ err }, 'could not read the Cog providers; trying again');
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void look().then(schedule), deps.intervalMs);
  };
  const ready = look().then(schedule);

  return {
    ready,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
