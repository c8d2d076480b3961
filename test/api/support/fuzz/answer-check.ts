import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FoundOperation, JsonSchema, OasDocument, OasResponse } from '../openapi';

/** What came back for one call; `text` is empty for an event stream (only its head is read). */
export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

const DOC_ID = 'urn:drover:openapi';

/** `#/components/schemas/X` → the same schema inside the copy Ajv holds under DOC_ID. */
function rebased(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${DOC_ID}#/$defs/`)) as JsonSchema;
}

const isJsonType = (type: string) => type === 'application/json' || type.endsWith('+json');

/**
 * Judges answers against the document: never a 5xx, a documented status, a documented content
 * type, a body valid against its schema (JSON Schema 2020-12, the document's own dialect), and for
 * errors the problem shape of docs/api.md.
 */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  private readonly compiled = new Map<JsonSchema, ValidateFunction>();

  constructor(private readonly doc: OasDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({
      $id: DOC_ID,
      $defs: Object.fromEntries(Object.entries(doc.components.schemas).map(([k, v]) => [k, rebased(v)])),
    });
  }

  private validator(schema: JsonSchema): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(rebased(schema));
      this.compiled.set(schema, v);
    }
    return v;
  }

  /** Every way the answer breaks the contract (empty when it keeps it). */
  check(found: FoundOperation, answer: FuzzAnswer): string[] {
    const out: string[] = [];
    const { status, contentType, text } = answer;
    if (status >= 500) out.push(`answered ${status}: no input may produce a 5xx`);
    let body: unknown;
    if (isJsonType(contentType) && text) {
      try {
        body = JSON.parse(text);
      } catch {
        out.push(`the ${contentType} body is not JSON`);
        return out;
      }
    }
    const documented: OasResponse | undefined = found.op.responses[String(status)];
    // A request whose path no longer names this route (a `..` or `%2F` segment) meets Nest's 404.
    const unrouted = status === 404 && (body as { detail?: unknown } | undefined)?.detail === 'no such route';
    if (!documented && !unrouted) {
      out.push(`status ${status} is not documented (documented: ${Object.keys(found.op.responses).join(', ')})`);
    }
    if (status >= 400) {
      if (contentType !== 'application/problem+json') {
        out.push(`a ${status} answer must be application/problem+json, was ${contentType || 'none'}`);
      } else {
        const p = body as Record<string, unknown> | undefined;
        if (!p || typeof p.type !== 'string' || !p.type.startsWith('urn:drover:problem:')) {
          out.push('problem without a urn:drover:problem: type');
        }
        if (p?.status !== status) out.push(`problem status ${String(p?.status)} ≠ HTTP status ${status}`);
        if (typeof p?.title !== 'string' || typeof p?.detail !== 'string') out.push('problem without title or detail');
      }
      if (/\n\s+at /.test(text)) out.push('the answer carries a stack trace');
    }
    if (!documented) return out;
    const content = documented.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) {
      if (text) out.push(`status ${status} is documented without a body but has one (${contentType})`);
      return out;
    }
    if (!types.includes(contentType)) {
      out.push(`content type ${contentType || 'none'} is not documented for ${status} (${types.join(', ')})`);
      return out;
    }
    const schema = content[contentType]?.schema;
    if (schema && isJsonType(contentType)) {
      const validate = this.validator(schema);
      if (!validate(body)) {
        const errors = (validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
        out.push(`the ${status} body does not match its schema: ${errors.join('; ')}`);
      }
    }
    return out;
  }
}
