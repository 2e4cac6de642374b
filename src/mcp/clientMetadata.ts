// The bot's OAuth Client ID Metadata Document: where an authorization server says it takes one
// (`client_id_metadata_document_supported`), the SDK's OAuth client uses this document's https URL as the client
// id, and the server fetches it from the bot, so no registration is stored anywhere. Only an https PUBLIC_URL can
// serve as a client id; otherwise dynamic registration (or a configured client id) is used as before.
import type { OAuthClientMetadata } from '@modelcontextprotocol/client';

export const CLIENT_METADATA_PATH = '/mcp/oauth/client-metadata.json';

/** The document's URL, when PUBLIC_URL is https; undefined otherwise. */
export function clientMetadataUrl(publicUrl: string): string | undefined {
  return new URL(publicUrl).protocol === 'https:' ? `${publicUrl.replace(/\/+$/, '')}${CLIENT_METADATA_PATH}` : undefined;
}

/** What the document says: the bot is a public client that signs people in with a code and PKCE at its callback. */
export function clientMetadataDocument(publicUrl: string, callbackPath: string): (OAuthClientMetadata & { client_id: string }) | undefined {
  const url = clientMetadataUrl(publicUrl);
  if (url === undefined) return undefined;
  return {
    client_id: url,
    client_name: 'skillbot',
    redirect_uris: [`${publicUrl.replace(/\/+$/, '')}${callbackPath}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
