// /mcp attach and /mcp prompt in the core, the server over stdio in the sandbox (the cases: chatCommandsCases.ts).
import { chatCommandsCases } from './chatCommandsCases.ts';

await chatCommandsCases('stdio');
