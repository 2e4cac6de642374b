// JSON schemas a server supplies (tools' input and output schemas), checked without backtracking: Ajv, as the SDK
// uses it, with every `pattern` and `patternProperties` run by re2js (linear in the text's length) instead of the
// JavaScript engine, whose backtracking lets `^(a+)+$` hold the bot's one thread for minutes on 29 characters.
// The same validator checks arguments before the card (toolCall.ts) and is handed to the SDK's Client, which checks
// structured results against output schemas. A pattern re2js cannot run (lookahead, backreferences) makes the
// schema unusable: the call is refused with that reason, never checked by the backtracking engine.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { Ajv as SdkAjv, addFormats as sdkAddFormats } from '@modelcontextprotocol/client/validators/ajv';
import { RE2JS } from 're2js';

interface AjvInstance {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
  removeSchema(schema: unknown): unknown;
  errorsText(errors: unknown): string;
}
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

// The Ajv (8) and ajv-formats the SDK's client ships with: the bot's own tree holds an older Ajv for other packages.
const Ajv = SdkAjv as unknown as AjvClass;
const addFormats = sdkAddFormats as unknown as (ajv: AjvInstance) => void;

/** Ajv's `code.regExp`: a RegExp-like object per pattern; `toString` is Ajv's cache key for it. */
const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(pattern);
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);

export class LinearSchemaValidator implements jsonSchemaValidator {
  private readonly ajv: AjvInstance;

  constructor() {
    this.ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, code: { regExp: linearRegExp } });
    addFormats(this.ajv);
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let check: ReturnType<AjvInstance['compile']>;
    try {
      check = this.ajv.compile(schema);
    } catch (error) {
      const why = `the server's schema cannot be checked here (${(error as Error).message.replace(/\s+/g, ' ').slice(0, 200)})`;
      return () => ({ valid: false, data: undefined, errorMessage: why });
    } finally {
      // Each schema stands alone: none is kept by Ajv (a server relisting its tools would grow its cache), and a
      // server's `$id` never names, or collides with, another's schema.
      try {
        this.ajv.removeSchema(schema);
      } catch {
        // Never added (it did not compile).
      }
    }
    return (input) => (check(input) ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: this.ajv.errorsText(check.errors) });
  }
}
