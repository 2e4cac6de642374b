// A server's schema defaults (SEP-1034) in what a person's form answer becomes: a field left empty takes its
// `default` (what the form showed pre-filled), typed text wins over it, a secret field's default (never shown) is
// not sent for the person, and the values then pass the server's own schema.
import { describe, expect, it } from 'vitest';
import { checkValues, questionFields, type RequestedSchema, valuesFromText } from '../../src/mcp/questions/questionForm.ts';

const schema: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
    verified: { type: 'boolean', default: true },
    token: { type: 'string', writeOnly: true, default: 'server-secret' },
    note: { type: 'string' },
  },
  required: ['name', 'age'],
};

describe('schema defaults in a form answer', () => {
  it('fills the fields left empty with their defaults, keeps what was typed, and never a secret default', () => {
    const fields = questionFields(schema);
    expect(fields.find((field) => field.name === 'age')?.initial).toBe('30');
    const untouched = valuesFromText(fields, {});
    expect(untouched).toEqual({ ok: true, values: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true } });
    expect(checkValues(schema, untouched.ok ? untouched.values : {})).toEqual({ ok: true });
    const typed = valuesFromText(fields, { name: 'Ada', age: '', verified: 'false', note: '  ' });
    expect(typed).toEqual({ ok: true, values: { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: false } });
  });
});
