import { now, type FileReferenceDeps } from './deps';
import { matchFileUrl } from './fileUrl';
import { inspectUpload, isPastExpiry } from './inspect';
import { describeKind, mediaKindOf } from '../shared/media';
import { inputStrings, type MediaRequirement } from './mediaFields';

export interface FileReferenceProblem {
  /** Location in the input, in the form `image_url`, `elements[0].characterImages[1]`. */
  path: string;
  message: string;
}

function kindsText(requirement: MediaRequirement): string {
  return requirement.kinds.map(describeKind).join(' or ');
}

function externalUrlProblem(value: string, requirement: MediaRequirement): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return requirement.annotated ? `must be a URL of ${kindsText(requirement)}` : null;
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' || requirement.annotated) {
    return 'must be an https:// URL or a fileUrl returned by POST /v1/uploads/presign';
  }
  return null;
}

async function ownFileProblem(
  deps: FileReferenceDeps,
  accountId: string,
  fileId: string,
  requirement: MediaRequirement | null,
): Promise<string | null> {
  const upload = await deps.prisma.upload.findUnique({ where: { id: fileId } });
  if (!upload || upload.accountId !== accountId) return 'refers to a file that does not exist';
  const at = now(deps);
  if (isPastExpiry(upload, at)) return `refers to a file that expired at ${upload.expiresAt.toISOString()}`;

  const state = await inspectUpload(deps, upload, at);
  if (state.rejectedSizeBytes !== undefined) {
    return (
      `refers to a file of ${state.rejectedSizeBytes} bytes, over the ${upload.maxSizeBytes}-byte limit for ` +
      `${upload.contentType}; the file has been deleted`
    );
  }
  if (state.status !== 'uploaded') return 'refers to a file that has not been uploaded yet';
  if (state.storedContentType !== null && state.storedContentType !== upload.contentType) {
    return `refers to a file stored as ${state.storedContentType}, not the declared ${upload.contentType}`;
  }
  const kind = mediaKindOf(upload.contentType);
  if (requirement && (!kind || !requirement.kinds.includes(kind))) {
    return `must be ${kindsText(requirement)}, but the file is ${upload.contentType}`;
  }
  return null;
}

/**
 * Checks every string in a job input that is one of our file URLs: it exists, belongs to `accountId`, has been
 * uploaded, has not expired, is within its size limit (an over-size object is deleted) and is of the kind its field
 * needs. Other URLs in media fields must be https. Returns one problem per failing location; empty when all is well.
 */
export async function checkFileReferences(
  deps: FileReferenceDeps,
  accountId: string,
  input: unknown,
  inputSchema?: unknown,
): Promise<FileReferenceProblem[]> {
  const problems: FileReferenceProblem[] = [];
  for (const { path, value, requirement } of inputStrings(input, inputSchema ?? {})) {
    const match = matchFileUrl(deps.config.api.publicBaseUrl, value);
    let message: string | null = null;
    if (match.kind === 'ours') message = await ownFileProblem(deps, accountId, match.fileId, requirement);
    else if (match.kind === 'ours-invalid') message = 'refers to a file that does not exist';
    else if (requirement) message = externalUrlProblem(value, requirement);
    if (message) problems.push({ path, message });
  }
  return problems;
}
