export * from './types';
export { createProviderAdapter, createProviderRegistry, isProviderKind } from './registry';
export type { ProviderAdapterOptions, ProviderDescriptor, ProviderRegistry, ProviderRegistryOptions } from './registry';
export { createLocalAdapter, type LocalAdapterOptions } from './local/adapter';
export { createHttpAdapter, type HttpAdapterOptions } from './http/adapter';
export {
  httpProviderConfigFromEnv,
  providerEnvPrefix,
  ProviderConfigError,
  HTTP_PROVIDER_DEFAULTS,
  type HttpProviderConfig,
} from './http/config';
export { nominalProcessingSeconds, isVideoCapability, NOMINAL_IMAGE_SECONDS, NOMINAL_VIDEO_SECONDS } from './nominalTime';
export { IMAGE_SIZE_LABELS, parseImageSize } from './local/inputs';
export { parseInjectedFailures, stripFailureTokens, type InjectedFailure } from './local/failureInjection';
