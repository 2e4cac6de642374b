// read_mcp_resource through Slack, the server over Streamable HTTP (the cases: readResourceCases.ts).
import { readResourceCases } from './readResourceCases.ts';

await readResourceCases('http');
