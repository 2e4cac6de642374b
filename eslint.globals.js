// Node globals for the linter (kept here so eslint.config.js stays about rules).
export default Object.fromEntries(
  ['process', 'console', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
    'clearImmediate', 'Buffer', 'URL', 'URLSearchParams', 'AbortController', 'AbortSignal', 'TextEncoder',
    'TextDecoder', 'fetch', 'Response', 'Request', 'Headers', 'structuredClone', 'queueMicrotask', 'performance',
  ].map((name) => [name, /** @type {const} */ ('readonly')]),
);
