/**
 * Every JSON answer a test receives through `request()` is checked against the OpenAPI document the API
 * serves: the operation (method and path template), the status, and the body's schema. A handler that answers
 * something its schema does not describe fails the test that saw it.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { createApp } from '../../src/api/app';
import { buildOpenApiDocument } from '../../src/api/openapi';

interface Operation {
  pattern: RegExp;
  template: string;
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

let operations: Map<string, Operation[]> | null = null;
const validators = new Map<string, ValidateFunction>();
let ajv: Ajv2020 | null = null;

function load(): Map<string, Operation[]> {
  if (operations) return operations;
  // Importing the app registers every route's path in the OpenAPI registry.
  void createApp;
  const document = buildOpenApiDocument('http://localhost') as unknown as {
    paths: Record<string, Record<string, { responses: Operation['responses'] }>>;
    components: object;
  };
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components } as object);
  operations = new Map();
  for (const [template, methods] of Object.entries(document.paths)) {
    // Literal segments first: `/v1/jobs/events` must not be taken for `/v1/jobs/{jobId}`.
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(methods)) {
      const list = operations.get(method.toUpperCase()) ?? [];
      list.push({ pattern, template, responses: operation.responses });
      operations.set(method.toUpperCase(), list);
    }
  }
  for (const list of operations.values()) list.sort((a, b) => placeholders(a.template) - placeholders(b.template));
  return operations;
}

function placeholders(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

function validatorFor(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
    validate = ajv!.compile(rewritten);
    validators.set(key, validate);
  }
  return validate;
}

/** Whether an answer is one JSON document (not JSON Lines, `application/jsonl`, which streams many). */
function isJson(contentType: string | null): boolean {
  return contentType?.split(';')[0]?.trim() === 'application/json';
}

/** Throws when a JSON answer of a documented operation is not what the document says it returns. */
export function checkResponseContract(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  if (!isJson(contentType)) return;
  const path = new URL(url).pathname;
  const operation = load().get(method.toUpperCase())?.find((op) => op.pattern.test(path));
  if (!operation) return;
  const label = `${method.toUpperCase()} ${operation.template} → ${status}`;
  const response = operation.responses[String(status)] ?? operation.responses.default;
  if (!response) throw new Error(`${label}: status not documented in the OpenAPI document`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${label}: JSON body not documented`);
  const validate = validatorFor(label, schema);
  if (!validate(body)) {
    throw new Error(`${label}: body does not match its schema: ${ajv!.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** Throws when `value` is not an instance of the document's component schema `name` (e.g. `WebhookPayload`). */
export function checkComponentSchema(name: string, value: unknown): void {
  load();
  const validate = validatorFor(`component ${name}`, { $ref: `#/components/schemas/${name}` });
  if (!validate(value)) throw new Error(`${name}: value does not match its schema: ${ajv!.errorsText(validate.errors)}`);
}

/** A fetch that checks every JSON answer against the document, for clients (the SDK) that bring their own requests. */
export function contractCheckedFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await base(request);
    if (isJson(response.headers.get('content-type'))) {
      const body = await response.clone().json();
      checkResponseContract(request.method, request.url, response.status, response.headers.get('content-type'), body);
    }
    return response;
  };
}
