/**
 * OpenAI's SDKs send image edits and video requests as `multipart/form-data`. The body, read whole within the
 * route's limit, is split by the platform's own form-data parser (undici's `Response.formData()`) into text fields
 * and files.
 */
import type { Request } from 'express';
import type { ReceivedFile } from '../../../dialects/openai/edits';
import { ApiError } from '../../apiError';
import { filenameProblem } from '../../../shared/uploadFilename';

export interface MultipartForm {
  /** Each text field's value; a field sent twice is refused. */
  fields: Record<string, string>;
  /** The files under each field name, in the order sent. */
  files: Map<string, ReceivedFile[]>;
}

const refused = (message: string, path = '(body)') => new ApiError('VALIDATION_ERROR', message, [{ path, message }]);

/** A file's name as an upload keeps it: a plain name without control characters, else the field's own name. */
function uploadFilename(name: string, field: string): string {
  return name !== '' && filenameProblem(name) === null ? name : field.replace(/\W/g, '') || 'file';
}

export async function readMultipart(req: Request): Promise<MultipartForm> {
  const contentType = req.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !Buffer.isBuffer(req.body)) {
    throw refused('Send the request as multipart/form-data (as the OpenAI SDKs do)');
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.body), { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw refused(`The multipart body could not be read: ${(error as Error).message}`);
  }
  const fields: Record<string, string> = {};
  const files = new Map<string, ReceivedFile[]>();
  for (const [name, value] of form.entries()) {
    if (name.includes('\u0000')) throw refused('A field name holds a NUL character');
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw refused(`The field ${name} holds a NUL character`, name);
      if (name in fields) throw new ApiError('VALIDATION_ERROR', `The field ${name} was sent more than once`, [{ path: name, message: 'sent more than once' }]);
      fields[name] = value;
    } else {
      const file: ReceivedFile = { filename: uploadFilename(value.name, name), contentType: value.type, data: Buffer.from(await value.arrayBuffer()) };
      files.set(name, [...(files.get(name) ?? []), file]);
    }
  }
  return { fields, files };
}
