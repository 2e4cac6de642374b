// Loopback fakes of Claude on Amazon Bedrock and on Google Vertex AI (see docs/testing.md). Each speaks its cloud's
// request shape and framing and hands the Anthropic-shaped request to the Anthropic fake behind it, so the same
// brains, validation and usage answer, and `anthropic.requests` records what reached "the model".
//
// Bedrock (InvokeModel / InvokeModelWithResponseStream): `POST /model/{modelId}/invoke[-with-response-stream]`,
// SigV4-signed (`Authorization: AWS4-HMAC-SHA256 Credential=…/{region}/bedrock/aws4_request`) or a Bedrock API key
// (`Authorization: Bearer`), the body without `model` and `stream` and with `anthropic_version`. A stream answers
// `application/vnd.amazon.eventstream`: one binary event-stream message per Anthropic event, headers
// `:event-type: chunk`, `:content-type: application/json`, `:message-type: event`, payload `{"bytes": base64(event JSON)}`.
//
// Vertex (rawPredict / streamRawPredict): `POST /v1/projects/{project}/locations/{region}/publishers/anthropic/
// models/{model}:rawPredict|streamRawPredict` with `Authorization: Bearer <OAuth token>`, the body without `model`
// and with `anthropic_version`; the stream is the Anthropic API's own SSE.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './freePort.ts';
import { crc32 } from 'node:zlib';

export interface CloudRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
  status: number;
}

export interface FakeCloud {
  /** Base URL for the SDK (ANTHROPIC_BEDROCK_BASE_URL; ANTHROPIC_VERTEX_BASE_URL is this plus `/v1`). */
  readonly url: string;
  readonly requests: CloudRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** One AWS event-stream message: prelude (lengths + CRC), string headers, payload, message CRC. */
export function eventStreamMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name, 'utf8');
    const valueBytes = Buffer.from(value, 'utf8');
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    let at = header.writeUInt8(nameBytes.length, 0);
    at += nameBytes.copy(header, at);
    at = header.writeUInt8(7, at); // 7: string
    at = header.writeUInt16BE(valueBytes.length, at);
    valueBytes.copy(header, at);
    return header;
  });
  const headerBytes = Buffer.concat(encoded);
  const total = 12 + headerBytes.length + payload.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const body = Buffer.concat([prelude, preludeCrc, headerBytes, payload]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, messageCrc]);
}

/** The `data:` of each named SSE event, in order. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length))
    .filter((data): data is string => data !== undefined);
}

/** The Anthropic fake behind a cloud, and the key to ask it with (when it accepts only some). */
interface Behind {
  anthropicUrl: string;
  anthropicKey?: string;
}

/** Asks the Anthropic fake, as the first-party API would be asked. */
async function askAnthropic(behind: Behind, version: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${behind.anthropicUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': version, 'x-api-key': behind.anthropicKey ?? 'cloud-fake' },
    body: JSON.stringify(body),
  });
}

async function listen(server: Server, requests: CloudRequest[]): Promise<FakeCloud> {
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serve(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Server {
  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { message: `fake failed: ${String(error)}` });
      else res.destroy();
    });
  });
}

/** Parses the body and checks what both clouds check: JSON, `anthropic_version`, no `model`. */
function cloudBody(raw: string): { body: Record<string, unknown> } | { problem: string } {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { problem: 'Malformed input request: the body is not JSON' };
  }
  if (typeof body !== 'object' || body === null) return { problem: 'Malformed input request: the body is not an object' };
  const record = body as Record<string, unknown>;
  if (typeof record.anthropic_version !== 'string') return { problem: 'Malformed input request: #: required key [anthropic_version] not found' };
  if ('model' in record) return { problem: 'Malformed input request: #: extraneous key [model] is not permitted' };
  return { body: record };
}

export async function startFakeBedrock(options: Behind & { region: string }): Promise<FakeCloud> {
  const requests: CloudRequest[] = [];
  const server = serve(async (req, res) => {
    const headers = headersOf(req);
    const raw = await readBody(req);
    const record: CloudRequest = { path: req.url ?? '', headers, body: undefined, status: 0 };
    requests.push(record);
    const fail = (status: number, type: string, message: string) => {
      record.status = status;
      json(res, status, { message }, { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
    };
    const route = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !route) return fail(404, 'UnknownOperationException', `no operation at ${req.method} ${req.url}`);
    const auth = headers.authorization ?? '';
    const signed = auth.startsWith('AWS4-HMAC-SHA256 ') && auth.includes(`/${options.region}/bedrock/aws4_request`) && headers['x-amz-date'] !== undefined;
    if (!signed && !auth.startsWith('Bearer ')) return fail(403, 'AccessDeniedException', 'Missing Authentication Token');
    const parsed = cloudBody(raw);
    if ('problem' in parsed) return fail(400, 'ValidationException', parsed.problem);
    if ('stream' in parsed.body) return fail(400, 'ValidationException', 'Malformed input request: #: extraneous key [stream] is not permitted');
    record.body = parsed.body;
    const stream = route[2] === 'invoke-with-response-stream';
    const { anthropic_version: version, ...rest } = parsed.body;
    const answer = await askAnthropic(options, String(version), { ...rest, model: decodeURIComponent(route[1] ?? ''), stream });
    const text = await answer.text();
    if (!answer.ok) return fail(answer.status, answer.status === 429 ? 'ThrottlingException' : 'ValidationException', text);
    record.status = 200;
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
    for (const data of sseData(text)) {
      const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(data, 'utf8').toString('base64') }), 'utf8');
      res.write(eventStreamMessage({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, payload));
    }
    res.end();
  });
  return listen(server, requests);
}

export async function startFakeVertex(options: Behind & { project: string; region: string; accessToken: string }): Promise<FakeCloud> {
  const requests: CloudRequest[] = [];
  const server = serve(async (req, res) => {
    const headers = headersOf(req);
    const raw = await readBody(req);
    const record: CloudRequest = { path: req.url ?? '', headers, body: undefined, status: 0 };
    requests.push(record);
    const fail = (status: number, reason: string, message: string) => {
      record.status = status;
      json(res, status, { error: { code: status, message, status: reason } });
    };
    const route = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !route) return fail(404, 'NOT_FOUND', `no method at ${req.method} ${req.url}`);
    if (headers.authorization !== `Bearer ${options.accessToken}`) {
      return fail(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    }
    if (route[1] !== options.project || route[2] !== options.region) return fail(404, 'NOT_FOUND', `Publisher model projects/${route[1]}/locations/${route[2]} not found`);
    const parsed = cloudBody(raw);
    if ('problem' in parsed) return fail(400, 'INVALID_ARGUMENT', parsed.problem);
    record.body = parsed.body;
    const stream = route[4] === 'streamRawPredict';
    if ((parsed.body.stream === true) !== stream) return fail(400, 'INVALID_ARGUMENT', `stream must be ${stream} for ${route[4]}`);
    const { anthropic_version: version, ...rest } = parsed.body;
    const answer = await askAnthropic(options, String(version), { ...rest, model: decodeURIComponent(route[3] ?? '') });
    const text = await answer.text();
    if (!answer.ok) return fail(answer.status, 'INVALID_ARGUMENT', text);
    record.status = 200;
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' }).end(text);
  });
  return listen(server, requests);
}
