/** The OpenAI dialect's use cases, assembled once over the job service and the stores it reads. */
import type { PrismaClient } from '../../db/prisma';
import type { JobService } from '../../jobs/service';
import type { Caller } from '../../jobs/quote';
import type { Storage } from '../../storage/storage';
import { usableOpenAiModels } from './catalog';
import { editImages, type ImageEditDeps, type ImageEditRequest } from './edits';
import { generateImages, type ImageGenerationRequest, type OpenAiRequestContext } from './images';
import { createVideo, getVideo, listVideos, videoContent, type VideoCreateRequest } from './videos';

export interface OpenAiDialectDeps {
  prisma: PrismaClient;
  storage: Storage;
  jobs: JobService;
  imagesWaitSeconds: number;
  /** Stores a file sent with a request as an upload of the account (the upload service's `store`). */
  storeUpload: ImageEditDeps['storeUpload'];
  /** A server secret that keys the upload ids of a keyed request's files. */
  fileIdSecret: string;
}

export function createOpenAiDialect(deps: OpenAiDialectDeps) {
  const imageDeps = { prisma: deps.prisma, storage: deps.storage, jobs: deps.jobs, waitSeconds: deps.imagesWaitSeconds, storeUpload: deps.storeUpload, fileIdSecret: deps.fileIdSecret };
  const videoDeps = { prisma: deps.prisma, storage: deps.storage, jobs: deps.jobs, storeUpload: deps.storeUpload, fileIdSecret: deps.fileIdSecret };
  return {
    models: (caller: Caller) => usableOpenAiModels(deps.prisma, caller),
    generateImages: (caller: Caller, request: ImageGenerationRequest, context: OpenAiRequestContext) => generateImages(imageDeps, caller, request, context),
    editImages: (caller: Caller, request: ImageEditRequest, context: OpenAiRequestContext) => editImages(imageDeps, caller, request, context),
    createVideo: (caller: Caller, request: VideoCreateRequest, context: OpenAiRequestContext) => createVideo(videoDeps, caller, request, context),
    getVideo: (caller: Caller, videoId: string) => getVideo(videoDeps, caller, videoId),
    listVideos: (caller: Caller, query: Parameters<typeof listVideos>[2]) => listVideos(videoDeps, caller, query),
    videoContent: (caller: Caller, videoId: string, variant: string | undefined) => videoContent(videoDeps, caller, videoId, variant),
  };
}

export type OpenAiDialect = ReturnType<typeof createOpenAiDialect>;
