// The resolve hook node20.mjs registers: `fs` imported by the conformance suite is fsShim.mjs.
const shim = new URL('./fsShim.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
