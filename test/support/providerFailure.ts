import { expect } from 'vitest';
import { ProviderError } from '../../src/providers/types';

/** The ProviderError a provider call failed with (the test fails if it did not, or failed otherwise). */
export async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
