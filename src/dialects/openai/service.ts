/** The OpenAI dialect's use cases, assembled once over the job service and the stores it reads. */
import type { PrismaClient } from '../../db/prisma';
import type { JobService } from '../../jobs/service';
import type { Caller } from '../../jobs/quote';
import type { Storage } from '../../storage/storage';
import { usableOpenAiModels } from './catalog';
import { generateImages, type ImageGenerationRequest } from './images';

export interface OpenAiDialectDeps {
  prisma: PrismaClient;
  storage: Storage;
  jobs: JobService;
  imagesWaitSeconds: number;
}

export function createOpenAiDialect(deps: OpenAiDialectDeps) {
  const imageDeps = { prisma: deps.prisma, storage: deps.storage, jobs: deps.jobs, waitSeconds: deps.imagesWaitSeconds };
  return {
    models: (caller: Caller) => usableOpenAiModels(deps.prisma, caller),
    generateImages: (caller: Caller, request: ImageGenerationRequest, context: Parameters<typeof generateImages>[3]) =>
      generateImages(imageDeps, caller, request, context),
  };
}

export type OpenAiDialect = ReturnType<typeof createOpenAiDialect>;
