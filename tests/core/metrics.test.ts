import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/ops/metrics.ts';

describe('Prometheus metrics', () => {
  it('renders labelled counters and cumulative histogram buckets in the text format', async () => {
    const metrics = new Metrics();
    metrics.turns.inc({ status: 'answered' });
    metrics.turns.inc({ status: 'answered' });
    metrics.turns.inc({ status: 'failed' });
    metrics.scriptRuns.inc({ skill: 'x', status: 'te"st' });
    metrics.turnSeconds.observe({ status: 'answered' }, 0.2);
    metrics.turnSeconds.observe({ status: 'answered' }, 3);
    const text = await metrics.render();
    expect(text).toContain('# TYPE skillbot_turns_total counter');
    expect(text).toContain('skillbot_turns_total{status="answered"} 2');
    expect(text).toContain('skillbot_turns_total{status="failed"} 1');
    expect(text).toContain('skillbot_script_runs_total{skill="x",status="te\\"st"} 1');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="0.25",status="answered"} 1');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="5",status="answered"} 2');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="+Inf",status="answered"} 2');
    expect(text).toContain('skillbot_turn_duration_seconds_count{status="answered"} 2');
    expect(await metrics.value(metrics.turns, { status: 'answered' })).toBe(2);
  });

  it("serves the process's default metrics and the state gauges read at scrape time", async () => {
    const metrics = new Metrics();
    let leased = 3;
    metrics.watch({
      backlog: async () => ({ waiting: 7, oldestAt: Date.now() - 90_000 }),
      pendingApprovals: async () => 2,
      chatsLeasedHere: () => leased,
      runningScripts: () => 1,
    });
    const text = await metrics.render();
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    expect(text).toContain('skillbot_process_resident_memory_bytes');
    expect(text).toContain('skillbot_inbox_waiting_messages 7');
    expect(text).toMatch(/skillbot_inbox_oldest_message_age_seconds (8\d|9\d)/);
    expect(text).toContain('skillbot_approvals_pending 2');
    expect(text).toContain('skillbot_chats_leased 3');
    expect(text).toContain('skillbot_script_processes_running 1');
    leased = 0;
    expect(await metrics.render()).toContain('skillbot_chats_leased 0');
  });

  it('keeps each app on its own registry: two apps in one process count apart', async () => {
    const one = new Metrics();
    const other = new Metrics();
    one.turns.inc({ status: 'answered' });
    expect(await one.value(one.turns, { status: 'answered' })).toBe(1);
    expect(await other.value(other.turns, { status: 'answered' })).toBe(0);
  });

  it('keeps the last known value of a gauge whose source fails (the store is away), instead of failing the scrape', async () => {
    const metrics = new Metrics();
    let storeAway = false;
    metrics.watch({
      backlog: async () => (storeAway ? Promise.reject(new Error('store away')) : { waiting: 7, oldestAt: undefined }),
      pendingApprovals: async () => 0,
      chatsLeasedHere: () => 0,
      runningScripts: () => 0,
    });
    expect(await metrics.render()).toContain('skillbot_inbox_waiting_messages 7');
    storeAway = true;
    const text = await metrics.render();
    expect(text).toContain('skillbot_inbox_waiting_messages 7');
    expect(text).toContain('skillbot_chats_leased 0');
  });
});
