// /mcp attach and /mcp prompt in the core, the server over Streamable HTTP (the cases: chatCommandsCases.ts).
import { chatCommandsCases } from './chatCommandsCases.ts';

await chatCommandsCases('http');
