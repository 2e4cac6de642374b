// What went wrong with an MCP request, told apart by the SDK's own error classes and codes (SdkError's
// SdkErrorCode, SdkHttpError's status, UnauthorizedError), never by the words of a message, which a server writes
// and an SDK release may reword.
import { SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';

/** The server wants credentials the connection does not have (a sign-in, or a refresh that failed). */
export function isUnauthorized(error: unknown): boolean {
  if (UnauthorizedError.isInstance(error)) return true;
  if (SdkHttpError.isInstance(error)) return error.code === SdkErrorCode.ClientHttpAuthentication || error.status === 401;
  return false;
}

/** The request passed its timeout (MCP_TIMEOUT_MS) without an answer. */
export const isTimeout = (error: unknown): boolean => SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout;
