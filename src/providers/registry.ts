import { httpProviderConfigFromEnv, ProviderConfigError, type HttpProviderConfig } from './http/config';
import { createHttpAdapter, type HttpAdapterOptions } from './http/adapter';
import { createLocalAdapter, type LocalAdapterOptions } from './local/adapter';
import type { ProviderAdapter, ProviderKind } from './types';

export type ProviderAdapterOptions =
  | { kind: 'local'; local?: LocalAdapterOptions }
  | { kind: 'http'; http: HttpProviderConfig; transport?: HttpAdapterOptions };

export function createProviderAdapter(options: ProviderAdapterOptions): ProviderAdapter {
  return options.kind === 'local' ? createLocalAdapter(options.local) : createHttpAdapter(options.http, options.transport);
}

export function isProviderKind(value: string): value is ProviderKind {
  return value === 'local' || value === 'http';
}

/** What a provider row says about how to reach it (`Provider.id`, `Provider.adapter`). */
export interface ProviderDescriptor {
  id: string;
  adapter: string;
}

export interface ProviderRegistry {
  /** The adapter for a provider, created once; throws ProviderConfigError for an unknown kind or missing HTTP settings. */
  forProvider(provider: ProviderDescriptor): ProviderAdapter;
}

export interface ProviderRegistryOptions {
  env?: NodeJS.ProcessEnv;
  local?: LocalAdapterOptions;
  transport?: HttpAdapterOptions;
}

/**
 * One adapter per provider id: `local` providers share the built-in renderer settings, `http`
 * providers read `PROVIDER_HTTP_<ID>_*` from the environment. A provider worker builds its adapter
 * at start with `forProvider`, so a missing variable stops the worker with a clear message.
 */
export function createProviderRegistry(options: ProviderRegistryOptions = {}): ProviderRegistry {
  const adapters = new Map<string, ProviderAdapter>();
  return {
    forProvider({ id, adapter }) {
      const existing = adapters.get(id);
      if (existing) return existing;
      if (!isProviderKind(adapter)) throw new ProviderConfigError(`provider "${id}" has unknown adapter "${adapter}" (expected local or http)`);
      const created =
        adapter === 'local'
          ? createProviderAdapter({ kind: 'local', local: options.local })
          : createProviderAdapter({ kind: 'http', http: httpProviderConfigFromEnv(id, options.env), transport: options.transport });
      adapters.set(id, created);
      return created;
    },
  };
}
