// A server's form question as fields a chat can show (string, number, integer, boolean, one choice of a list), the
// typed values read back from what a person typed, and the check against the server's schema before anything is
// sent: Ajv with linear-time patterns (schemaValidator.ts), never the engine's backtracking RegExp on a server's
// pattern. Fields the schema marks secret (`format: password`, `writeOnly`) are never logged or audited.
import type { JsonSchemaType } from '@modelcontextprotocol/client';
import { stripHidden } from '../../text/hidden.ts';
import { LinearSchemaValidator } from '../schemaValidator.ts';

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

export interface QuestionField {
  name: string;
  kind: FieldKind;
  /** What the person reads: the schema's title, else the field's name (hidden characters removed). */
  label: string;
  description?: string;
  required: boolean;
  /** `enum`'s choices: the value sent, the label shown. */
  choices?: Array<{ value: string; label: string }>;
  /** Shown pre-filled where the platform can. */
  initial?: string;
  secret: boolean;
  /** `format: email`/`uri`/`date`…, a hint for the platform's input. */
  format?: string;
}

/** The requested schema as it arrives (the SDK checked its shape: an object of primitive properties). */
export type RequestedSchema = { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };

const clean = (text: unknown, max: number): string | undefined => (typeof text === 'string' ? stripHidden(text).text.replace(/\s+/g, ' ').trim().slice(0, max) : undefined);

function choicesOf(property: Record<string, unknown>): Array<{ value: string; label: string }> | undefined {
  if (Array.isArray(property.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    return property.enum.map((value, index) => ({ value: String(value), label: clean(names[index], 75) ?? clean(String(value), 75) ?? '' }));
  }
  if (Array.isArray(property.oneOf)) {
    return (property.oneOf as Array<Record<string, unknown>>).map((option) => ({ value: String(option.const), label: clean(option.title, 75) ?? clean(String(option.const), 75) ?? '' }));
  }
  return undefined;
}

/** The fields of a requested schema, in the server's order. Multi-choice arrays are read as one choice per line. */
export function questionFields(schema: RequestedSchema): QuestionField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const choices = choicesOf(property);
    const type = String(property.type);
    const kind: FieldKind = choices !== undefined ? 'enum' : type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
    const initial = property.default === undefined ? undefined : String(property.default);
    const format = typeof property.format === 'string' ? property.format : undefined;
    return {
      name,
      kind,
      label: clean(property.title, 45) || clean(name, 45) || 'value',
      ...(clean(property.description, 150) ? { description: clean(property.description, 150)! } : {}),
      required: required.has(name),
      ...(choices === undefined ? {} : { choices }),
      ...(initial === undefined ? {} : { initial }),
      secret: format === 'password' || property.writeOnly === true,
      ...(format === undefined ? {} : { format }),
    };
  });
}

export type Values = Record<string, string | number | boolean | string[]>;

/**
 * Typed values from what the person typed or picked (every platform hands text): an empty field takes the schema's
 * `default` (SEP-1034: what the form showed pre-filled, or would have where a platform cannot pre-fill; a secret
 * field's default is never shown, so it is not sent on the person's behalf); an empty optional field without one
 * is left out; a number that does not read as one is an error naming the field.
 */
export function valuesFromText(fields: readonly QuestionField[], typed: Record<string, string | undefined>): { ok: true; values: Values } | { ok: false; why: string } {
  const values: Values = {};
  for (const field of fields) {
    const given = typed[field.name]?.trim() ?? '';
    const text = given === '' && !field.secret ? (field.initial ?? '') : given;
    if (text === '') {
      if (field.required && field.kind !== 'boolean') return { ok: false, why: `${field.label} is required` };
      if (field.kind === 'boolean' && field.required) values[field.name] = false;
      continue;
    }
    if (field.kind === 'number' || field.kind === 'integer') {
      const number = Number(text);
      if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number))) return { ok: false, why: `${field.label} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}` };
      values[field.name] = number;
    } else if (field.kind === 'boolean') {
      values[field.name] = /^(true|yes|y|1|on)$/i.test(text);
    } else {
      values[field.name] = text;
    }
  }
  return { ok: true, values };
}

const validator = new LinearSchemaValidator();

/** The values against the server's schema (its patterns in linear time); one sentence naming what is wrong. */
export function checkValues(schema: RequestedSchema, values: Values): { ok: true } | { ok: false; why: string } {
  const check = validator.getValidator<Values>(schema as unknown as JsonSchemaType);
  const result = check(values);
  return result.valid ? { ok: true } : { ok: false, why: `the answer does not match what the server asked for: ${(result.errorMessage ?? '').slice(0, 200)}` };
}

/** The values as the audit and the log may keep them: a secret field's value is never kept. */
export function loggableValues(fields: readonly QuestionField[], values: Values): Values {
  const secret = new Set(fields.filter((field) => field.secret).map((field) => field.name));
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, secret.has(name) ? '[secret]' : value]));
}
