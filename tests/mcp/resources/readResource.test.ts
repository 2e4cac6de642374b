// read_mcp_resource through Slack, the server over stdio in the sandbox (the cases: readResourceCases.ts).
import { readResourceCases } from './readResourceCases.ts';

await readResourceCases('stdio');
