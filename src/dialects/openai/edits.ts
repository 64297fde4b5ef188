/**
 * OpenAI's image edits as genmedia jobs. The request's files are stored as uploads of the caller's account (with
 * their caps and expiry), so they are the job's input files like any upload: erased with the job, expired with the
 * upload. The catalog's `edits` mapping names the input fields they go into; size, quality and `n` map as for
 * generation, and the jobs run and are answered as generation's are.
 */
import type { OpenAiDialectDef } from './catalogSchema';
import { validateIdempotencyKey } from '../../jobs/idempotency';
import type { Caller } from '../../jobs/quote';
import { isUploadContentType, maxUploadBytes, mediaKindOf, type UploadContentType } from '../../shared/media';
import { resolveOpenAiModel } from './catalog';
import { requestFileId, type StoreUpload } from './requestFiles';
import {
  invalid,
  mappedImageInputs,
  runImageJobs,
  type ImageGenerationDeps,
  type ImageGenerationRequest,
  type ImageGenerationResult,
  type OpenAiRequestContext,
} from './images';

/** A file as it arrived in the multipart request. */
export interface ReceivedFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface ImageEditRequest extends ImageGenerationRequest {
  images: ReceivedFile[];
  mask?: ReceivedFile;
}

export interface ImageEditDeps extends ImageGenerationDeps {
  /** Registers and stores one file as an upload of the account (under `fileId` when given, idempotently). */
  storeUpload: StoreUpload;
  /** Keys the upload ids of a request's files that carries an Idempotency-Key. */
  fileIdSecret: string;
}

type EditMapping = NonNullable<OpenAiDialectDef['edits']>;

const NO_IMAGE_MAPPING = { sizes: {}, qualities: {} };

/** Content types clients send for a file whose type they could not tell (a name without a known extension). */
const UNTYPED = ['', 'application/octet-stream'];

/** The image type the bytes begin with, for an untyped file. */
function sniffedImageType(data: Buffer): string | undefined {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'image/jpeg';
  if (data.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/** The file as an upload the model can read: an image type we take, within the image upload limit. */
export function acceptedImage(file: ReceivedFile, param: string): ReceivedFile & { contentType: UploadContentType } {
  const declared = file.contentType.split(';')[0]!.trim().toLowerCase();
  const contentType = UNTYPED.includes(declared) ? (sniffedImageType(file.data) ?? declared) : declared;
  if (!isUploadContentType(contentType) || mediaKindOf(contentType) !== 'image') {
    throw invalid(param, `'${file.filename}' is ${contentType || 'of no content type'}; send a PNG, JPEG, WebP or GIF image`);
  }
  const limit = maxUploadBytes(contentType);
  if (file.data.length > limit) throw invalid(param, `'${file.filename}' has ${file.data.length} bytes, over the ${limit}-byte image limit`);
  if (file.data.length === 0) throw invalid(param, `'${file.filename}' is empty`);
  return { ...file, contentType };
}

/** The input fields the stored images and mask fill. */
export function editFields(mapping: EditMapping, imageUrls: string[], maskUrl: string | undefined): Record<string, unknown> {
  const { field, list, item } = mapping.images;
  const images = imageUrls.map((url) => (item === undefined ? url : { [item]: url }));
  const fields: Record<string, unknown> = { [field]: list ? images : images[0] };
  if (maskUrl !== undefined && mapping.mask) fields[mapping.mask.field] = maskUrl;
  return fields;
}

export async function editImages(deps: ImageEditDeps, caller: Caller, request: ImageEditRequest, context: OpenAiRequestContext): Promise<ImageGenerationResult> {
  const model = await resolveOpenAiModel(deps.prisma, caller, request.model);
  const mapping = model.dialect?.edits;
  if (!mapping) throw invalid('model', `The model '${request.model}' does not take image edit requests`);
  const imageMapping = model.dialect?.images ?? NO_IMAGE_MAPPING;
  if (request.images.length > mapping.images.max) {
    throw invalid('image', `The model '${request.model}' takes at most ${mapping.images.max} image${mapping.images.max === 1 ? '' : 's'} per edit`);
  }
  if (request.mask && !mapping.mask) throw invalid('mask', `The model '${request.model}' takes no mask`);
  const images = request.images.map((file) => acceptedImage(file, 'image'));
  const mask = request.mask && acceptedImage(request.mask, 'mask');
  // Size, quality, n and the key are checked before a file is stored: a refused request leaves nothing behind.
  mappedImageInputs(imageMapping, {}, request);
  if (context.idempotencyKey !== undefined) validateIdempotencyKey(context.idempotencyKey);

  const accountId = caller.account.id;
  const store = async (file: ReceivedFile & { contentType: UploadContentType }, index: number) => {
    const fileId = requestFileId(deps.fileIdSecret, { accountId, idempotencyKey: context.idempotencyKey, kind: 'edit', index, data: file.data });
    return (await deps.storeUpload(accountId, file, { fileId })).fileUrl;
  };
  const imageUrls: string[] = [];
  for (const [index, file] of images.entries()) imageUrls.push(await store(file, index));
  const maskUrl = mask && (await store(mask, images.length));
  const inputs = mappedImageInputs(imageMapping, { prompt: request.prompt, ...editFields(mapping, imageUrls, maskUrl) }, request);
  return runImageJobs(deps, caller, model, inputs, request.responseFormat, context, 'edit');
}
