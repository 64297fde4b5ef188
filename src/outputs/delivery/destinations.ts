/**
 * What delivery needs to know of the accounts' destinations, injected by the process that runs it: whether an account
 * has one (asked when a job completes, from PostgreSQL alone, so completion never waits for a customer's bucket) and
 * the bucket itself (opened by each attempt).
 */
import type { OpenDestinationBucket } from '../../destinations/bucket';

export interface DeliveryDestinations {
  hasDestination(accountId: string): Promise<boolean>;
  open: OpenDestinationBucket;
}

/** No account has a destination: completed jobs start no delivery. */
export const NO_DESTINATIONS: DeliveryDestinations = {
  hasDestination: async () => false,
  open: async () => null,
};
