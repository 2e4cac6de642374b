// GET <PUBLIC_URL>/mcp/oauth/callback on the bot's HTTP listener: where a person's browser lands after signing in
// to an MCP server. The tokens never leave the bot, and are not used yet: the page shows a short code, the account
// joined and the chat identity it is joined to, and the person who started the sign-in confirms that code in the
// chat (signInConfirm.ts). Someone else who completes their link sees the code, but cannot press their button.
// Beside it, the bot's Client ID Metadata Document (clientMetadata.ts), which authorization servers fetch.
import type { HttpServer } from '../ops/httpServer.ts';
import { CLIENT_METADATA_PATH } from './clientMetadata.ts';
import { CALLBACK_PATH, type SignIns } from './signIn.ts';

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${title}</h1><p>${text}</p></body>`;

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function mountOAuthCallback(http: HttpServer, signIns: SignIns): void {
  const metadata = signIns.clientMetadata();
  if (metadata !== undefined) {
    const body = JSON.stringify(metadata);
    http.route('GET', CLIENT_METADATA_PATH, (_req, res) => void res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(body));
  }
  http.route('GET', CALLBACK_PATH, async (req, res) => {
    const query = new URL(req.url ?? '/', 'http://callback').searchParams;
    const outcome = await signIns.complete(query);
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
    if (outcome.ok) {
      const text =
        `You signed in to ${escape(outcome.server)} as <b>${escape(outcome.account)}</b>, for the chat user <b>${escape(outcome.personId)}</b>. ` +
        `To finish, go back to the chat: the bot asks that user to confirm the code <b style="font-size:1.4em">${escape(outcome.code)}</b>. ` +
        'Nothing is connected until they do. If you did not start this sign-in from the chat, close this page.';
      res.writeHead(200, headers).end(page('Confirm in the chat', text));
    } else {
      res.writeHead(400, headers).end(page('Not connected', escape(outcome.why)));
    }
  });
}
