/**
 * What the Cog adapter keeps in PostgreSQL (src/providers/cog/predictionStore.ts implements it): a Cog server has no list of
 * predictions and forgets one the moment it ends, so the slots each server has given out (leases), the secret of
 * each prediction's webhook and the webhook's last snapshot live on our side, until the job has ended
 * (`pruneCogPredictions` in src/providers/cog/predictionStore.ts).
 */

export interface CogServer {
  url: string;
  slots: number;
}

export interface CogLease {
  /** The prediction id. */
  id: string;
  providerId: string;
  serverUrl: string;
  slots: number;
  secretHash: Buffer;
  serverStartedAt?: string;
  expiresAt: Date;
}

export interface CogPredictionRecord {
  id: string;
  providerId: string;
  serverUrl: string;
  secretHash: Buffer;
  serverStartedAt?: string;
  /** What is kept of the last webhook's prediction (predictions.ts `keptPrediction`). */
  snapshot?: unknown;
  terminal: boolean;
  missingSince?: Date;
  released: boolean;
}

export interface CogPredictionStore {
  /** The provider's enabled servers, in the order they were attached. */
  servers(providerId: string): Promise<CogServer[]>;
  /**
   * Takes one of the server's slots for the prediction when fewer than `slots` are held (leases not released and
   * not expired), atomically across every worker. True when taken; taking it again for the same id is a no-op.
   */
  lease(lease: CogLease): Promise<boolean>;
  find(id: string): Promise<CogPredictionRecord | null>;
  /**
   * Keeps a webhook's snapshot unless a terminal one was kept already (Cog's non-terminal webhooks may arrive after the
   * completed one); a terminal snapshot also frees the slot. False when ignored.
   */
  recordWebhook(id: string, snapshot: unknown, terminal: boolean): Promise<boolean>;
  /** Notes (once) that a check found the prediction neither running nor finished; returns since when. */
  markMissing(id: string, at: Date): Promise<Date>;
  release(id: string): Promise<void>;
}
