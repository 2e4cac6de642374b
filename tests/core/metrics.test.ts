import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics.ts';

describe('Prometheus metrics', () => {
  it('renders labelled counters and cumulative histogram buckets in the text format', () => {
    const metrics = new Metrics();
    metrics.turns.inc({ status: 'answered' });
    metrics.turns.inc({ status: 'answered' });
    metrics.turns.inc({ status: 'failed' });
    metrics.scriptRuns.inc({ status: 'te"st' });
    metrics.turnSeconds.observe(0.2);
    metrics.turnSeconds.observe(3);
    const text = metrics.render();
    expect(text).toContain('# TYPE skillbot_turns_total counter');
    expect(text).toContain('skillbot_turns_total{status="answered"} 2');
    expect(text).toContain('skillbot_turns_total{status="failed"} 1');
    expect(text).toContain('skillbot_script_runs_total{status="te\\"st"} 1');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="0.25"} 1');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="5"} 2');
    expect(text).toContain('skillbot_turn_duration_seconds_bucket{le="+Inf"} 2');
    expect(text).toContain('skillbot_turn_duration_seconds_count 2');
  });
});
