import { afterEach, describe, expect, it } from 'vitest';
import { HttpServer } from '../../src/ops/httpServer.ts';
import { silentLogger } from '../../src/ops/log.ts';

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(health: () => Promise<{ ok: boolean; detail: Record<string, unknown> }>): Promise<string> {
  const server = new HttpServer(silentLogger(), health);
  servers.push(server);
  return `http://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
}

describe('health endpoints', () => {
  it('answers /livez while not ready, and /readyz and /healthz with 503 and the reason', async () => {
    const base = await serve(async () => ({ ok: false, detail: { store: false, platforms: { slack: true } } }));
    const live = await fetch(`${base}/livez`);
    expect(live.status).toBe(200);
    for (const path of ['/readyz', '/healthz']) {
      const ready = await fetch(`${base}${path}`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ ok: false, store: false, platforms: { slack: true } });
    }
  });

  it('answers 200 on /readyz and /healthz once the store and the platforms are', async () => {
    let ok = false;
    const base = await serve(async () => ({ ok, detail: { store: ok } }));
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ok = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
