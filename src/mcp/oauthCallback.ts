// GET <PUBLIC_URL>/mcp/oauth/callback on the bot's HTTP listener: where a person's browser lands after signing in
// to an MCP server. The page says only whether it worked; the tokens never leave the bot.
import type { HttpServer } from '../ops/httpServer.ts';
import { CALLBACK_PATH, type SignIns } from './signIn.ts';

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${title}</h1><p>${text}</p></body>`;

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function mountOAuthCallback(http: HttpServer, signIns: SignIns): void {
  http.route('GET', CALLBACK_PATH, async (req, res) => {
    const query = new URL(req.url ?? '/', 'http://callback').searchParams;
    const outcome = await signIns.complete(query);
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
    if (outcome.ok) {
      res.writeHead(200, headers).end(page('Connected', `Your ${escape(outcome.server)} account is connected to skillbot. You can close this page and go back to the chat: your request goes on.`));
    } else {
      res.writeHead(400, headers).end(page('Not connected', escape(outcome.why)));
    }
  });
}
