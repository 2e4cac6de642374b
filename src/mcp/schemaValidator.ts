// JSON schemas a server supplies (tools' input and output schemas), checked without backtracking: Ajv, as the SDK
// uses it, with every `pattern` and `patternProperties` run by re2js (linear in the text's length) instead of the
// JavaScript engine, whose backtracking lets `^(a+)+$` hold the bot's one thread for minutes on 29 characters.
// The same validator checks arguments before the card (toolCall.ts) and is handed to the SDK's Client, which checks
// structured results against output schemas. A pattern re2js cannot run (lookahead, backreferences) makes the
// schema unusable: the call is refused with that reason, never checked by the backtracking engine.
import { createRequire } from 'node:module';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { RE2JS } from 're2js';

interface AjvInstance {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
  removeSchema(schema: unknown): unknown;
  errorsText(errors: unknown): string;
}
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

// The Ajv (8) and ajv-formats the SDK itself resolves: the bot's own tree holds an older Ajv for other packages.
const sdkRequire = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/validation/ajv'));
const Ajv = sdkRequire('ajv') as AjvClass & { default?: AjvClass };
const addFormats = sdkRequire('ajv-formats') as ((ajv: AjvInstance) => void) & { default?: (ajv: AjvInstance) => void };

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
    const Make = Ajv.default ?? Ajv;
    this.ajv = new Make({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, code: { regExp: linearRegExp } });
    (addFormats.default ?? addFormats)(this.ajv);
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
