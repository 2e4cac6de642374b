// `{{preflight.NAME}}` in a skill's body, replaced by the output of the step NAME (inject: variable).

// The placeholder form skill validation accepts (src/skills/extensions.ts).
const PLACEHOLDER = /\{\{\s*preflight\.([^\s}]*)\s*\}\}/g;

/**
 * Replaces every placeholder in one pass over the body. A value is inserted as it is: it is never scanned
 * again, so output holding `{{preflight.X}}` (or `$&`, or markup) stays literal text. Placeholders without a
 * value are left as written.
 */
export function substitutePreflightVariables(body: string, values: ReadonlyMap<string, string>): string {
  return body.replace(PLACEHOLDER, (placeholder, name: string) => values.get(name) ?? placeholder);
}
