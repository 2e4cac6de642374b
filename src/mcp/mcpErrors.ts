// What went wrong with an MCP request, told apart by the SDK's own error classes and codes (SdkError's
// SdkErrorCode, SdkHttpError's status, UnauthorizedError, ProtocolError's JSON-RPC code), never by the words of a
// message, which a server writes and an SDK release may reword.
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';

/** The server wants credentials the connection does not have (a sign-in, or a refresh that failed). */
export function isUnauthorized(error: unknown): boolean {
  if (UnauthorizedError.isInstance(error)) return true;
  if (SdkHttpError.isInstance(error)) return error.code === SdkErrorCode.ClientHttpAuthentication || error.status === 401;
  return false;
}

/** The request passed its timeout (MCP_TIMEOUT_MS) without an answer. */
export const isTimeout = (error: unknown): boolean => SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout;

/** The connection closed under the request (the server exited, or was cut off). */
export const isClosed = (error: unknown): boolean => SdkError.isInstance(error) && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected);

/** The server answered with a JSON-RPC error: its code, for the log. */
export const protocolCode = (error: unknown): number | undefined => (ProtocolError.isInstance(error) ? error.code : undefined);
